package main

import "flag"

// arenaEnabled is --arena: the Arena controllers (ArenaJob, ArenaRun,
// ArenaProject) run only when it is set, as enterprise.enabled does in the
// app chart. Without it ArenaJobs are admitted and left alone.
var arenaEnabled bool

func init() {
	flag.BoolVar(&arenaEnabled, "arena", false, "run the Arena controllers (enterprise)")
}
