package main

import ctrl "sigs.k8s.io/controller-runtime"

// controllerSetups registers each kind's controller with the manager. Each
// controller's file in this package appends its setup from init(), so adding
// a controller never edits main.go. Controllers run on the elected leader;
// webhooks run on every replica.
var controllerSetups []func(mgr ctrl.Manager) error
