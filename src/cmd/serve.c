// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bhprof serve: a Prometheus exporter. libmicrohttpd's threads answer
 * scrapes; whoever needs fresh figures (a scrape, the textfile writer)
 * reads the collector under one lock, so the BPF maps are read by one
 * thread at a time and concurrent scrapes share a recent read.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "util/outfile.h"
#include "output/promfmt.h"
#include "collect/runloop.h"

#ifdef BHPROF_NO_SERVE

int cmd_serve(int argc, char **argv)
{
	fprintf(stderr, "bhprof serve: not built into this binary (static "
		"build without libmicrohttpd); use the dynamic bhprof\n");
	return 2;
}

#else /* BHPROF_NO_SERVE */

#include <microhttpd.h>

#define DEFAULT_LISTEN "127.0.0.1:9477"
/* scrapes this close together share one read of the maps */
#define MAX_READ_AGE_NS 100000000ull
/* an idle or stalled connection is dropped after this */
#define CONN_TIMEOUT_S 5
#define MAX_CONNS 64
#define POOL_THREADS 2

struct server {
	pthread_mutex_t lock;
	struct run_state *st;
	struct snapshot *cur;
	struct summary *sum;
	uint64_t read_ns;	/* CLOCK_MONOTONIC of cur; 0: none yet */
	uint64_t scrapes[NR_PROM_FORMATS];
};

static void serve_usage(FILE *f)
{
	fprintf(f,
"Usage: bhprof serve [--listen ADDR:PORT] [-d DEV]... [-p PID] [--attach MODE]\n"
"                    [--textfile DIR [-i SEC]] [--duration SEC] [--self-cost]\n"
"                    [--callers] [-v]\n"
"\n"
"Export live per-path metrics to Prometheus: GET /metrics answers in the\n"
"text format, or in OpenMetrics when the scraper's Accept header asks.\n"
"Counters are cumulative since start. Metric names, buckets and example\n"
"queries are in README.md.\n"
"\n"
"      --listen ADDR:PORT  where to listen (default " DEFAULT_LISTEN ",\n"
"                       loopback; [::1]:PORT for IPv6; port 0: any free)\n"
"      --textfile DIR   write DIR/bhprof.prom atomically every interval, for\n"
"                       node_exporter's textfile collector; without --listen\n"
"                       no HTTP server is started\n"
"  -i, --interval SEC   textfile interval (default 1)\n"
"      --duration SEC   stop after SEC seconds\n"
"  -d, --device DEV     only this block device (name, /dev/NAME or\n"
"                       MAJ:MIN); may repeat\n"
"  -p, --pid PID        only write calls and writeback of this process\n"
"      --attach MODE    auto (default), fentry, kprobe or tracepoint\n"
"      --self-cost      export bhprof's own BPF run time (the kernel's BPF\n"
"                       statistics: every BPF program pays two clock\n"
"                       reads per run meanwhile)\n"
"      --callers        also export buffer_head allocations per owner, role\n"
"                       and context, the frees and the buffer_heads alive\n"
"  -v, --verbose        libbpf's own messages\n"
"\n"
"Exit status: 0 when stopped by a signal or the duration, 1 on errors,\n"
"2 on bad usage (a bad address, a port in use).\n"
"Example: bhprof serve --listen 127.0.0.1:9477 -d nvme0n1\n");
}

/* ---- the figures ---- */

static void process_stats(const struct server *srv, struct prom_process *p)
{
	struct rusage ru;
	long pages = 0, rss = 0;
	FILE *f;

	memset(p, 0, sizeof(*p));
	if (!getrusage(RUSAGE_SELF, &ru))
		p->cpu_seconds = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
				 (ru.ru_utime.tv_usec +
				  ru.ru_stime.tv_usec) / 1e6;
	f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) == 2)
			p->rss_bytes = (uint64_t)rss * sysconf(_SC_PAGESIZE);
		fclose(f);
	}
	p->start_seconds = srv->st->info.start_realtime_ns / 1e9;
	memcpy(p->scrapes, srv->scrapes, sizeof(p->scrapes));
}

/* Caller holds the lock. Everything since the programs were loaded:
 * Prometheus wants counters that only grow, from the exporter's start. */
static int refresh(struct server *srv)
{
	uint64_t now = now_ns();
	int err;

	if (srv->read_ns && now - srv->read_ns < MAX_READ_AGE_NS)
		return 0;
	err = collector_read(srv->st->col, srv->cur);
	if (err)
		return err;
	summarize(NULL, srv->cur, srv->sum);
	srv->read_ns = now;
	return 0;
}

/* The exposition in a malloc'ed buffer; scrape says whether it counts
 * as one and carries the process metrics (the textfile does neither). */
static int render(struct server *srv, enum prom_format fmt, bool scrape,
		  char **buf, size_t *len)
{
	struct prom_process proc;
	FILE *f;
	int err;

	*buf = NULL;
	f = open_memstream(buf, len);
	if (!f)
		return -ENOMEM;
	pthread_mutex_lock(&srv->lock);
	err = refresh(srv);
	if (!err) {
		if (scrape) {
			srv->scrapes[fmt]++;
			process_stats(srv, &proc);
		}
		err = prom_render(f, fmt, &srv->st->info, srv->sum,
				  scrape ? &proc : NULL) ? -EIO : 0;
	}
	pthread_mutex_unlock(&srv->lock);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

/* ---- HTTP ---- */

static const char index_page[] =
	"<!DOCTYPE html>\n<html><head><title>bhprof exporter</title></head>\n"
	"<body><h1>bhprof exporter</h1>\n"
	"<p>buffer_head and iomap write paths, per path and device.</p>\n"
	"<p><a href=\"/metrics\">Metrics</a></p>\n</body></html>\n";

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status,
			     const char *type, char *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, mode);
	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn,
				  unsigned int status, const char *msg)
{
	return reply(conn, status, "text/plain; charset=utf-8", (char *)msg,
		     strlen(msg), MHD_RESPMEM_PERSISTENT);
}

static enum MHD_Result metrics(struct server *srv, struct MHD_Connection *conn)
{
	enum prom_format fmt = prom_negotiate(MHD_lookup_connection_value(
		conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
	size_t len = 0;
	char *buf;

	if (render(srv, fmt, true, &buf, &len))
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "cannot read or render the metrics\n");
	return reply(conn, MHD_HTTP_OK, prom_content_type(fmt), buf, len,
		     MHD_RESPMEM_MUST_FREE);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	static int seen;
	struct server *srv = cls;

	/* answered at once, before any body: libmicrohttpd then closes
	 * the connection, which is what a client posting here deserves */
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "only GET and HEAD\n");
	/* a good request is answered on the second call, once it is read
	 * whole: only then does the connection stay open for the next */
	if (!*req_cls) {
		*req_cls = &seen;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;	/* a GET's body means nothing */
		return MHD_YES;
	}
	if (!strcmp(url, "/metrics"))
		return metrics(srv, conn);
	if (!strcmp(url, "/"))
		return reply(conn, MHD_HTTP_OK, "text/html; charset=utf-8",
			     (char *)index_page, sizeof(index_page) - 1,
			     MHD_RESPMEM_PERSISTENT);
	return reply_text(conn, MHD_HTTP_NOT_FOUND, "not found; try /metrics\n");
}

/* "127.0.0.1:9477", "[::1]:9477"; numeric only, so nothing is resolved */
static int split_listen(const char *s, char *host, size_t hlen, char *port,
			size_t plen)
{
	const char *colon;

	if (s[0] == '[') {
		const char *end = strchr(s, ']');

		if (!end || end[1] != ':' || (size_t)(end - s - 1) >= hlen)
			return -1;
		snprintf(host, hlen, "%.*s", (int)(end - s - 1), s + 1);
		colon = end + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon || strchr(s, ':') != colon ||
		    (size_t)(colon - s) >= hlen)
			return -1;
		snprintf(host, hlen, "%.*s", (int)(colon - s), s);
	}
	if (!colon[1] || strlen(colon + 1) >= plen ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
	    atol(colon + 1) > 65535)
		return -1;
	snprintf(port, plen, "%s", colon + 1);
	return 0;
}

/* The socket is ours, so a port in use or a foreign address is one
 * clear line before any BPF is loaded; libmicrohttpd serves on it. */
static int open_listener(const char *addr)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
					      AI_PASSIVE };
	struct addrinfo *ai = NULL;
	char host[64], port[8];
	int fd = -1, one = 1, err;

	if (split_listen(addr, host, sizeof(host), port, sizeof(port)) ||
	    getaddrinfo(host, port, &hints, &ai)) {
		fprintf(stderr, "bhprof serve: --listen takes a numeric "
			"ADDR:PORT such as " DEFAULT_LISTEN " or [::1]:9477, "
			"not '%s'\n", addr);
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
		err = errno;
		fprintf(stderr, "bhprof serve: cannot listen on %s: %s\n", addr,
			strerror(err));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

static void print_url(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[64], port[8];

	if (getsockname(fd, (struct sockaddr *)&ss, &len) ||
	    getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), port,
			sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV))
		return;
	fprintf(stderr, "bhprof: serving http://%s%s%s:%s/metrics\n",
		ss.ss_family == AF_INET6 ? "[" : "", host,
		ss.ss_family == AF_INET6 ? "]" : "", port);
}

/* The pool threads must not take SIGINT and friends: the main loop's
 * sleep is what a signal has to cut short. */
static struct MHD_Daemon *start_http(struct server *srv, int fd)
{
	struct MHD_Daemon *d;
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO,
			     0, NULL, NULL, handle, srv,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_THREAD_POOL_SIZE,
			     (unsigned int)POOL_THREADS,
			     MHD_OPTION_CONNECTION_TIMEOUT,
			     (unsigned int)CONN_TIMEOUT_S,
			     MHD_OPTION_CONNECTION_LIMIT,
			     (unsigned int)MAX_CONNS,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
			     MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!d)
		fprintf(stderr, "bhprof serve: libmicrohttpd failed to start\n");
	return d;
}

/* ---- the textfile ---- */

/* Through outfile's writer: DIR is usually root's, and serve has given
 * up root by now; node_exporter reads only *.prom, and outfile's rename
 * is seen whole or not at all. */
static int textfile_write(struct server *srv, struct outfile_writer *w)
{
	size_t len = 0;
	char *buf;
	int err;

	err = render(srv, PROM_TEXT, false, &buf, &len);
	if (err)
		return err;
	err = outfile_writer_put(w, buf, len);
	free(buf);
	return err;
}

static int check_textfile_dir(const char *dir)
{
	struct stat sb;

	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode) || access(dir, W_OK)) {
		fprintf(stderr, "bhprof serve: --textfile %s: not a writable "
			"directory\n", dir);
		return -1;
	}
	return 0;
}

/* ---- the command ---- */

static int serve_loop(struct run_opts *o, struct run_state *st,
		      struct server *srv, struct outfile_writer *w)
{
	int err = 0;

	for (uint64_t k = 1;; k++) {
		bool more = run_wait(o, st, st->start_ns +
				     (uint64_t)(k * o->interval * 1e9));

		if (w && more) {
			err = textfile_write(srv, w);
			if (err) {
				fprintf(stderr, "bhprof serve: writing %s/"
					"bhprof.prom: %s\n", o->textfile,
					strerror(-err));
				break;
			}
		}
		if (!more)
			break;
	}
	return err ? 1 : 0;
}

static int check_usage(const struct run_opts *o)
{
	if (o->cmd) {
		fprintf(stderr, "bhprof serve: takes no command ('%s'; see "
			"--help)\n", o->cmd[0]);
		return -1;
	}
	if (o->interval_set && !o->textfile) {
		fprintf(stderr, "bhprof serve: -i sets the --textfile interval; "
			"scrapes always read fresh figures\n");
		return -1;
	}
	return o->textfile ? check_textfile_dir(o->textfile) : 0;
}

int cmd_serve(int argc, char **argv)
{
	struct server srv = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct outfile_writer *tw = NULL;
	struct MHD_Daemon *d = NULL;
	char path[PATH_MAX];
	struct run_state st;
	struct run_opts o;
	int ret = 1, fd = -1, err;

	err = run_opts_parse(argc, argv, &o, RUN_OPT_SERVE | RUN_OPT_SELF_COST |
			     RUN_OPT_CALLERS,
			     serve_usage);
	if (err)
		return err > 0 ? 0 : 2;
	if (check_usage(&o))
		return 2;
	if (!o.textfile && !o.listen)
		o.listen = DEFAULT_LISTEN;
	if (o.listen) {
		fd = open_listener(o.listen);
		if (fd < 0)
			return 2;
	}
	srv.cur = calloc(1, sizeof(*srv.cur));
	srv.sum = calloc(1, sizeof(*srv.sum));
	srv.st = &st;
	if (!srv.cur || !srv.sum)
		goto out;
	signal(SIGPIPE, SIG_IGN);
	/* before run_start gives up root: it may not write DIR after */
	if (o.textfile) {
		snprintf(path, sizeof(path), "%s/bhprof.prom", o.textfile);
		if (outfile_writer_start(path, OUTFILE_FORCE, &tw))
			goto out;
	}
	if (run_start(&o, &st, argc, argv))
		goto finish;
	if (fd >= 0) {
		print_url(fd);
		d = start_http(&srv, fd);
		if (!d)
			goto finish;
		fd = -1;	/* libmicrohttpd closes it when stopped */
	}
	if (o.textfile)
		fprintf(stderr, "bhprof: writing %s/bhprof.prom every %g s\n",
			o.textfile, o.interval);
	ret = serve_loop(&o, &st, &srv, tw);
	/* no scrape may still be reading the collector run_finish closes */
	if (d)
		MHD_stop_daemon(d);
finish:
	run_finish(&st);
out:
	/* a stopped exporter's counters must not look live */
	outfile_writer_stop(tw, true);
	if (fd >= 0)
		close(fd);
	free(srv.cur);
	free(srv.sum);
	return ret;
}

#endif /* BHPROF_NO_SERVE */
