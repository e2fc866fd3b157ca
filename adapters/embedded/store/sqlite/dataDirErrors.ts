/**
 * The data directory cannot be used as it is (DATA_DIR, `flowgate serve --data-dir`): a file where a directory should
 * be, a directory that cannot be written, a database another flowgate holds, wrote in a newer version, or that is not a
 * database. One line saying which and what to do; the directory and its database are left as they are.
 */
export class DataDirectoryError extends Error {
  override name = 'DataDirectoryError';
}

/** Another flowgate process holds the data directory (one process per data directory). */
export class DataDirectoryInUseError extends DataDirectoryError {
  override name = 'DataDirectoryInUseError';
  constructor(
    message: string,
    /** The process that holds it, when its pid file says. */
    readonly pid: number | undefined,
  ) {
    super(message);
  }
}
