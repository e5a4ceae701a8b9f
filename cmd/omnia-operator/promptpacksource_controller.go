package main

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/promptpacksource"
)

// The PromptPackSource controller: a dev project's source materializes its
// live PromptPack, owns it and copies its dev labels to it.
func setupPromptPackSource(mgr ctrl.Manager, _ *operator) error {
	return promptpacksource.SetupWithManager(mgr, promptpacksource.Options{})
}
