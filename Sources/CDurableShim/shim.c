#define _GNU_SOURCE
#include <unistd.h>
#include "CDurableShim.h"

int bc_durable_syncfs(int fd) {
    return syncfs(fd);
}
