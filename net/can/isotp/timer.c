// SPDX-License-Identifier: GPL-2.0
/* CAN_ISOTP timers: the protocol's time-outs and the separation time
 * between consecutive frames. All four are softirq hrtimers driven under
 * the socket's lock; a callback may find its expiry outdated, because the
 * state machine stops and re-arms timers without waiting for callbacks
 * (it holds the lock they take). isotp_timer_fired() tells the two apart.
 */

#include <linux/hrtimer.h>
#include <linux/ktime.h>

#include "isotp-priv.h"

static void isotp_timer_init(struct isotp_timer *t,
			     enum hrtimer_restart (*fn)(struct hrtimer *))
{
	hrtimer_init(&t->hrt, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	t->hrt.function = fn;
	t->armed = false;
}

/* Context: the socket's init, before anyone else can see it. */
void isotp_timers_init(struct isotp_sock *so)
{
	isotp_timer_init(&so->fc_timer, isotp_fc_timeout);
	isotp_timer_init(&so->echo_timer, isotp_echo_timeout);
	isotp_timer_init(&so->gap_timer, isotp_gap_elapsed);
	isotp_timer_init(&so->rx_timer, isotp_rx_timeout);
}

/**
 * isotp_timer_arm() - (re)start a timer @ns from now
 * @so: the socket
 * @t: one of its timers
 * @ns: delay
 *
 * Does nothing once release() has begun: the timers are being shut down.
 * Context: under @so->lock.
 */
void isotp_timer_arm(struct isotp_sock *so, struct isotp_timer *t, u64 ns)
{
	lockdep_assert_held(&so->lock);
	if (so->dead)
		return;
	t->armed = true;
	hrtimer_start(&t->hrt, ns_to_ktime(ns), HRTIMER_MODE_REL_SOFT);
}

/**
 * isotp_timer_stop() - make a timer's pending expiry void
 * @so: the socket
 * @t: one of its timers
 *
 * A callback already running finds the timer disarmed and returns.
 * Context: under @so->lock; does not wait.
 */
void isotp_timer_stop(struct isotp_sock *so, struct isotp_timer *t)
{
	lockdep_assert_held(&so->lock);
	t->armed = false;
	hrtimer_try_to_cancel(&t->hrt);
}

/**
 * isotp_timer_fired() - whether a callback's expiry is the armed one
 * @so: the socket
 * @t: the timer whose callback runs
 *
 * False if the timer was stopped, or re-armed (it is queued again), while
 * the callback waited for the lock. True consumes the expiry.
 * Context: the timer's callback, under @so->lock.
 */
bool isotp_timer_fired(struct isotp_sock *so, struct isotp_timer *t)
{
	lockdep_assert_held(&so->lock);
	if (!t->armed || hrtimer_is_queued(&t->hrt))
		return false;
	t->armed = false;
	return true;
}

/**
 * isotp_timers_shutdown() - wait until no timer runs or can run again
 * @so: the socket, with @so->dead set under @so->lock so that nothing
 *	re-arms a timer
 *
 * Context: process, without @so->lock (the callbacks take it). May sleep.
 */
void isotp_timers_shutdown(struct isotp_sock *so)
{
	hrtimer_cancel(&so->gap_timer.hrt);
	hrtimer_cancel(&so->fc_timer.hrt);
	hrtimer_cancel(&so->echo_timer.hrt);
	hrtimer_cancel(&so->rx_timer.hrt);
}
