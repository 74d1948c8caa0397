/// The agent's own C: the peer's uid of a Unix socket (SO_PEERCRED's `struct ucred`, which
/// glibc declares only under _GNU_SOURCE, out of Swift's reach) and a detached start of the
/// agent (fork, setsid, fork again, stdio to a log or /dev/null, exec), where only
/// async-signal-safe calls may run between fork and exec: Swift code may not.
#ifndef BYTECLUB_CAGENTSHIM_H
#define BYTECLUB_CAGENTSHIM_H

/// The uid of the process at the other end of the connected Unix socket `fd`, in `*uid`.
/// Returns 0, or -1 with errno set.
int bc_agent_peer_uid(int fd, unsigned int *uid);

/// Starts `path` with `argv` (NULL-terminated) and the environment `envp` as a daemon: a new
/// session, reparented to init (so it never becomes our zombie), its stdin on /dev/null and its
/// stdout and stderr appended to `log_path` (or /dev/null when NULL or unopenable), and no other
/// descriptor of ours open. Waits only
/// for the short-lived middle child. Returns 0, or -1 with errno set.
int bc_agent_spawn_detached(const char *path, char *const argv[], char *const envp[], const char *log_path);

#endif
