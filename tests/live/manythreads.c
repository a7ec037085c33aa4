// SPDX-License-Identifier: GPL-2.0
/*
 * manythreads N PATH: N threads alive at once, each writing one 4 KiB
 * block of PATH at its own offset with pwrite(2); all wait for the last
 * to write before any exits. More threads than bhprof's per-thread map
 * holds (16384) must still each count as a write call.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_barrier_t all_written;
static int fd;
static long failed;

static void *writer(void *arg)
{
	static char block[4096];
	long i = (long)arg;

	if (pwrite(fd, block, sizeof(block), i * 4096L) != sizeof(block))
		__sync_fetch_and_add(&failed, 1);
	pthread_barrier_wait(&all_written);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t *t;
	long n;

	if (argc != 3 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: manythreads N PATH\n");
		return 2;
	}
	fd = open(argv[2], O_WRONLY);
	t = calloc(n, sizeof(*t));
	if (fd < 0 || !t) {
		perror("manythreads");
		return 1;
	}
	pthread_barrier_init(&all_written, NULL, n);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (long i = 0; i < n; i++) {
		if (pthread_create(&t[i], &attr, writer, (void *)i)) {
			fprintf(stderr, "manythreads: thread %ld: cannot create\n", i);
			return 1;
		}
	}
	for (long i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("%ld threads, %ld writes failed\n", n, failed);
	return failed ? 1 : 0;
}
