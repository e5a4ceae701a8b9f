// Package prober runs the operator's network probes (Provider endpoint and
// credential checks, ToolRegistry TCP dials) outside the reconcile workers.
//
// A controller's Reconcile never waits on the network: it Submits a Job for
// each probe that is due and reads the latest stored Result, computing its
// conditions from it (or from "not probed yet" before the first one). A
// small, operator-wide pool of workers runs the jobs:
//
//   - the pool is bounded (Options.Workers): at most that many probes are in
//     flight in the whole operator;
//   - at most Options.PerHost probes are in flight to one host, and at most
//     Options.PerNamespace for the objects of one namespace, so one tenant's
//     dead or slow endpoints can occupy only part of the pool;
//   - a target that failed is not probed again before its backoff (exponential,
//     capped) has passed, and a 429 is honoured: the Retry-After it carries
//     (seconds or an HTTP date, capped by Options.MaxRetryAfter) is the wait;
//   - a target already queued or in flight is not queued twice, and the queue
//     is bounded: a full queue drops the job (counted in
//     omnia_prober_dropped_total) and the controller keeps reporting "not
//     probed yet"; Submit never blocks;
//   - each namespace has a bounded share of the queue
//     (Options.MaxQueuedPerNamespace, default max(QueueSize/8, 16)): a
//     namespace with that many jobs waiting has its next one dropped the
//     same way, while other namespaces' jobs are still queued, and waiting
//     jobs are served round-robin by namespace, so one tenant's backlog
//     neither fills the queue nor delays another tenant's probes (or
//     rollout analysis measurements) behind it;
//   - every run is cut at Options.MaxTimeout, and a target is probed at most
//     once per Options.MinInterval, whatever its object asks.
//
// Results are kept in memory by owner object and probe key, and each stored
// result is announced to the owner's controller as an event.GenericEvent on
// the channel Events returns (a controller-runtime source.Channel), so the
// controller reconciles again and reads it.
//
// A Job carries the probe as a function. A credential reaches the worker only
// inside that function's closure, in memory, for the time the job waits and
// runs; the prober stores only the Outcome (status code, failure reason,
// detail), which must never hold it.
//
// The Prober is a leader-election runnable: it runs where the controllers
// run.
package prober
