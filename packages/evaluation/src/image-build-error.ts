/** An image that could not be built: an infrastructure failure, never an unresolved instance. */
export class ImageBuildError extends Error {
  constructor(
    readonly image: string,
    message: string,
  ) {
    super(`building ${image}: ${message}`);
    this.name = "ImageBuildError";
  }
}
