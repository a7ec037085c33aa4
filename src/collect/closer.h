/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * bhprof's perf events closed after it has gone. The last close of each
 * waits out a grace period in the kernel: for a syscall event,
 * tracepoint_synchronize_unregister() under event_mutex, one event after
 * another, about a second for tracepoint mode's. A grandchild that keeps
 * a copy of the perf events alone makes those closes its own.
 */
#ifndef BHPROF_CLOSER_H
#define BHPROF_CLOSER_H

/*
 * Call once every figure is read, before the links are destroyed: the
 * caller's closes are then not the last. What outlives the caller, for
 * about a second, is those events and their links alone: none of its
 * maps, files, sockets, terminal or statistics switch. A program on a
 * perf event runs as long as the event is there, disabled or not: the
 * caller makes the ones it leaves count nothing first (the syscall
 * stand-ins: an empty syscall table). Without /proc/self/fd, or where
 * fork fails, nothing happens and the caller closes them all itself.
 */
void closer_start(void);

#endif /* BHPROF_CLOSER_H */
