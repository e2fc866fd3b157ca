import { statfs } from 'node:fs/promises';

/**
 * Filesystems whose metadata a stat reads from this machine's memory or disks (statfs(2) `f_type` magic numbers, as
 * Linux names them). Anything else (NFS, SMB, FUSE, Ceph, 9p and types not listed) may stall on a network.
 */
const LOCAL_FILESYSTEM_TYPES: ReadonlySet<number> = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0x794c7630, // overlayfs (containers)
]);

/** Whether a filesystem of this statfs type is on this machine. */
export function isLocalFilesystemType(type: number): boolean {
  return LOCAL_FILESYSTEM_TYPES.has(type);
}

/**
 * Whether `path` lies on a local filesystem; undefined while it does not exist (a mount may yet appear there, so its
 * parent's filesystem says nothing). False when that cannot be told: the caller then keeps what never stalls the event
 * loop.
 */
export async function isOnLocalFilesystem(path: string): Promise<boolean | undefined> {
  try {
    return isLocalFilesystemType(Number((await statfs(path)).type));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : false;
  }
}
