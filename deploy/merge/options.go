package merge

import "github.com/altairalabs/omnia/deploy/intent"

// OptionsFor reads an intent agent's merge options: preserveUnset (default
// false), whether it carries a rollout block, and its idleTimeout.
func OptionsFor(a intent.Agent) Options {
	return Options{
		PreserveUnset: a.PreserveUnset != nil && *a.PreserveUnset,
		RolloutBlock:  a.Rollout != nil,
		IdleTimeout:   a.IdleTimeout,
	}
}
