/// Durable's C: syncfs(2), which glibc declares only under _GNU_SOURCE, out of Swift's reach.
#ifndef BYTECLUB_CDURABLESHIM_H
#define BYTECLUB_CDURABLESHIM_H

/// Flushes every file, folder and inode of the file system that holds `fd` to the disk, with one
/// flush of the disk's cache. Returns 0, or -1 with errno set.
int bc_durable_syncfs(int fd);

#endif
