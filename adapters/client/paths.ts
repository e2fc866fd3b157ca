/**
 * One path segment of an id. encodeURIComponent leaves `.` as it is, and a segment of only `.` or `..` is a dot
 * segment that URL handling (a proxy's, a browser's) removes: such an id is sent as `%2E`, which the server decodes.
 */
export function idSegment(id: string): string {
  return id === '.' || id === '..' ? id.replaceAll('.', '%2E') : encodeURIComponent(id);
}
