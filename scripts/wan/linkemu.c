/*
 * linkemu: an emulated network link between two tun devices, for `transfer-bench wan`.
 *
 * Where the kernel has no sch_netem, this stands in for `tc qdisc ... netem`, the way
 * mahimahi's mm-delay and mm-loss do it: every IP packet the kernel sends into one tun device
 * is read here and, unless dropped, written into the other one after it has crossed the link.
 * Each direction is a bottleneck router in front of a long wire:
 *   - random loss: each packet is dropped with the given probability on arrival;
 *   - rate: the packet is serialised at the link rate behind those already queued, and a
 *     packet that would find more than the queue limit (drop-tail, default one BDP) waiting
 *     is dropped;
 *   - delay: it then travels the one-way delay (half the RTT) and is delivered.
 * TCP sees real loss, queueing and delay; nothing here knows about TCP.
 *
 * The tun devices are created here (not persistent: they vanish when this exits) and moved
 * into their network namespaces by the bench; this process stays in the host namespace.
 * It prints "ready" on stdout once both are open, and its counters on stderr when it ends
 * (SIGINT / SIGTERM).
 *
 * Usage: linkemu A B --rtt-ms N --loss PERCENT --rate-mbit N [--queue-bytes N] [--seed N]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 16384
#define MAX_PACKET 2048

struct packet {
    uint64_t deliver_at;
    uint16_t length;
    unsigned char bytes[MAX_PACKET];
};

/* One direction: packets in flight in arrival order (their delivery times only grow). */
struct direction {
    int in_fd, out_fd;
    struct packet *ring;
    size_t head, count;
    uint64_t busy_until; /* when the link finishes serialising what it has */
    uint64_t forwarded, lost, tail_dropped, overflow;
};

static volatile sig_atomic_t stopping = 0;
static void on_signal(int signal) { (void)signal; stopping = 1; }

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: a seeded generator, so a run's losses can be repeated. */
static uint64_t random_state = 0x9E3779B97F4A7C15ull;
static double uniform(void) {
    random_state ^= random_state >> 12;
    random_state ^= random_state << 25;
    random_state ^= random_state >> 27;
    return (double)((random_state * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

static int open_tun(const char *name) {
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return -1;
    struct ifreq request;
    memset(&request, 0, sizeof request);
    request.ifr_flags = IFF_TUN | IFF_NO_PI;
    strncpy(request.ifr_name, name, IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &request) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static double rate_bytes_per_ns, loss_share;
static uint64_t one_way_ns, queue_limit_bytes;

/* Reads every packet waiting on the direction's input and queues or drops it. */
static void take_arrivals(struct direction *d) {
    for (;;) {
        struct packet *slot = &d->ring[(d->head + d->count) % SLOTS];
        unsigned char scratch[MAX_PACKET];
        int full = d->count == SLOTS;
        ssize_t length = read(d->in_fd, full ? scratch : slot->bytes, MAX_PACKET);
        if (length <= 0) return; /* EAGAIN: nothing more for now */
        uint64_t now = now_ns();
        if (full) { d->overflow++; continue; }
        if (uniform() < loss_share) { d->lost++; continue; }
        uint64_t start = d->busy_until > now ? d->busy_until : now;
        /* Bytes still waiting to be serialised ahead of this one. */
        double waiting = (double)(start - now) * rate_bytes_per_ns;
        if (waiting + (double)length > (double)queue_limit_bytes) { d->tail_dropped++; continue; }
        uint64_t serialised = start + (uint64_t)((double)length / rate_bytes_per_ns);
        d->busy_until = serialised;
        slot->deliver_at = serialised + one_way_ns;
        slot->length = (uint16_t)length;
        d->count++;
    }
}

/* Delivers every packet whose time has come; returns ns until the next one (or -1). */
static int64_t deliver(struct direction *d) {
    uint64_t now = now_ns();
    while (d->count > 0) {
        struct packet *p = &d->ring[d->head];
        if (p->deliver_at > now) return (int64_t)(p->deliver_at - now);
        /* A full tun queue on the far side drops the packet, as a full NIC ring would. */
        if (write(d->out_fd, p->bytes, p->length) == p->length) d->forwarded++;
        d->head = (d->head + 1) % SLOTS;
        d->count--;
    }
    return -1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: linkemu A B --rtt-ms N --loss PERCENT --rate-mbit N [--queue-bytes N] [--seed N]\n");
        return 64;
    }
    double rtt_ms = 50, loss_percent = 0, rate_mbit = 100;
    long long queue_bytes = -1;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rtt-ms")) rtt_ms = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--loss")) loss_percent = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--rate-mbit")) rate_mbit = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--queue-bytes")) queue_bytes = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed")) random_state = strtoull(argv[i + 1], NULL, 10) | 1;
        else { fprintf(stderr, "linkemu: unknown option %s\n", argv[i]); return 64; }
    }
    if (rtt_ms < 0 || loss_percent < 0 || loss_percent >= 100 || rate_mbit <= 0) {
        fprintf(stderr, "linkemu: out-of-range link parameters\n");
        return 64;
    }
    rate_bytes_per_ns = rate_mbit * 1e6 / 8 / 1e9;
    loss_share = loss_percent / 100;
    one_way_ns = (uint64_t)(rtt_ms * 1e6 / 2);
    /* One bandwidth-delay product of buffer unless told otherwise, at least 64 packets. */
    double bdp = rate_mbit * 1e6 / 8 * rtt_ms / 1000;
    queue_limit_bytes = queue_bytes >= 0 ? (uint64_t)queue_bytes : (uint64_t)(bdp > 64 * 1500 ? bdp : 64 * 1500);

    int a = open_tun(argv[1]), b = open_tun(argv[2]);
    if (a < 0 || b < 0) {
        fprintf(stderr, "linkemu: cannot create tun devices %s, %s: %s\n", argv[1], argv[2], strerror(errno));
        return 69;
    }
    struct direction there = { .in_fd = a, .out_fd = b }, back = { .in_fd = b, .out_fd = a };
    there.ring = calloc(SLOTS, sizeof(struct packet));
    back.ring = calloc(SLOTS, sizeof(struct packet));
    if (!there.ring || !back.ring) { fprintf(stderr, "linkemu: out of memory\n"); return 71; }

    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    signal(SIGPIPE, SIG_IGN);
    printf("ready rtt_ms=%.1f loss=%.3f%% rate_mbit=%.1f queue_bytes=%llu\n", rtt_ms, loss_percent, rate_mbit,
           (unsigned long long)queue_limit_bytes);
    fflush(stdout);

    struct pollfd fds[2] = { { .fd = a, .events = POLLIN }, { .fd = b, .events = POLLIN } };
    while (!stopping) {
        int64_t next_there = deliver(&there), next_back = deliver(&back);
        int64_t wait = next_there < 0 ? next_back : (next_back < 0 || next_there < next_back ? next_there : next_back);
        struct timespec timeout = { .tv_sec = 0, .tv_nsec = 200000000 }; /* wake now and then to see a signal */
        if (wait >= 0 && wait < 200000000) timeout.tv_nsec = wait;
        int ready = ppoll(fds, 2, &timeout, NULL);
        if (ready < 0 && errno != EINTR) break;
        if (ready > 0) {
            if (fds[0].revents & POLLIN) take_arrivals(&there);
            if (fds[1].revents & POLLIN) take_arrivals(&back);
        }
    }
    fprintf(stderr, "linkemu: %s->%s forwarded %llu lost %llu tail-dropped %llu; back forwarded %llu lost %llu tail-dropped %llu\n",
            argv[1], argv[2], (unsigned long long)there.forwarded, (unsigned long long)there.lost,
            (unsigned long long)there.tail_dropped, (unsigned long long)back.forwarded, (unsigned long long)back.lost,
            (unsigned long long)back.tail_dropped);
    return 0;
}
