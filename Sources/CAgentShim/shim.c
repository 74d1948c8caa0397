#define _GNU_SOURCE
#include "CAgentShim.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int bc_agent_peer_uid(int fd, unsigned int *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    if (length != sizeof credentials) {
        errno = EPROTO;
        return -1;
    }
    *uid = (unsigned int)credentials.uid;
    return 0;
}

int bc_agent_spawn_detached(const char *path, char *const argv[], char *const envp[], const char *log_path) {
    pid_t middle = fork();
    if (middle < 0) return -1;
    if (middle == 0) {
        // The middle child: a session of its own, then the agent as its child, then gone, so
        // init adopts the agent. Only async-signal-safe calls from here on.
        if (setsid() < 0) _exit(127);
        pid_t agent = fork();
        if (agent < 0) _exit(127);
        if (agent > 0) _exit(0);
        int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        int log_fd = log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
        if (log_fd < 0) log_fd = null_fd;
        if (null_fd >= 0) dup2(null_fd, 0);
        if (log_fd >= 0) {
            dup2(log_fd, 1);
            dup2(log_fd, 2);
        }
        // Nothing else of the starter's goes with the agent: an inherited descriptor (a pipe
        // whose end its parent waits for, a build tool's lock) would be held for the agent's life.
        long limit = sysconf(_SC_OPEN_MAX);
        if (limit < 0 || limit > 65536) limit = 65536;
        for (int fd = 3; fd < limit; fd++) close(fd);
        execve(path, argv, envp);
        _exit(127);
    }
    int status = 0;
    while (waitpid(middle, &status, 0) < 0) {
        // Reaped by someone else (a process that reaps every child on SIGCHLD): its status is
        // gone, and whether the agent came up is for the caller's poll of the socket to tell.
        if (errno == ECHILD) return 0;
        if (errno != EINTR) return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        errno = ECHILD;
        return -1;
    }
    return 0;
}
