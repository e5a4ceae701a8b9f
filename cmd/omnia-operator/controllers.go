package main

import (
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"
)

// controllers is every kind's controller, set up in this order. Each setup
// reads its flags and the shared objects from the operator it is handed
// and returns nil without registering when its feature is off (the Arena
// controllers without --arena). Controllers run on the elected leader;
// webhooks run on every replica.
var controllers = []struct {
	kind  string
	setup func(mgr ctrl.Manager, op *operator) error
}{
	{"AgentRuntime", setupAgentRuntime},
	{"ArenaJob", setupArenaJob},
	{"ArenaProject", setupArenaProject},
	{"ArenaRun", setupArenaRun},
	{"PromptPack", setupPromptPack},
	{"PromptPackSource", setupPromptPackSource},
	{"Provider", setupProvider},
	{"ToolRegistry", setupToolRegistry},
}

// setupControllers registers every controller with the manager; the first
// that cannot be set up stops the operator, named.
func setupControllers(mgr ctrl.Manager, op *operator) error {
	for _, c := range controllers {
		if err := c.setup(mgr, op); err != nil {
			return fmt.Errorf("setting up the %s controller: %w", c.kind, err)
		}
	}
	return nil
}
