/**
 * A file of a run that could not be used: it did not parse, had the wrong shape, or repeated
 * an instance. Reported with its path and reason; the rest of the run is still analysed.
 */
export interface FileProblem {
  path: string;
  reason: string;
}
