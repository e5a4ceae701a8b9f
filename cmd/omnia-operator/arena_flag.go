package main

import "flag"

// arenaEnabled is --arena: the Arena controllers (ArenaJob, ArenaRun,
// ArenaProject) are an enterprise feature and run only when it is set, as
// the app chart's enterprise.enabled (arenajob.md, top note). Without it
// the Arena CRDs are still installed and the webhook still judges Arena
// objects, but nothing reconciles them: an ArenaJob is admitted and left
// alone. `make run` sets it.
var arenaEnabled = flag.Bool("arena", false, "run the Arena controllers (enterprise)")
