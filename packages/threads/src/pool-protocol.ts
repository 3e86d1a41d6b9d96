/** A request as the pool posts it to a thread: its number, to match the answer. */
export interface PoolRequest<Request> {
  id: number;
  request: Request;
}

/**
 * A thread's reply to one request: its answer; or `error`, why this request failed (the
 * caller's to handle); or `failed`, why the thread cannot work at all (it is then stopped and
 * its requests fail as lost, like those of a thread that ran out of memory).
 */
export interface PoolReply<Answer> {
  id: number;
  answer?: Answer;
  error?: string;
  failed?: string;
}
