package main

import (
	"flag"

	"github.com/altairalabs/omnia/cmd/omnia-operator/arenasetup"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
	"github.com/altairalabs/omnia/reconcile/netguard"
)

// The enterprise Arena switch and the Arena controllers' shared settings.
// The Arena controllers (ArenaProject, ArenaJob, ArenaRun) are an
// enterprise feature and run only when --arena is set, as the app chart's
// enterprise.enabled (arenajob.md, top note). Without it the Arena CRDs are
// still installed and the webhook still judges Arena objects, but nothing
// reconciles them: an ArenaJob is admitted and left alone. `make run` sets
// it.
var (
	arenaEnabled = flag.Bool("arena", false, "run the Arena controllers (enterprise)")

	// workspaceContentPath is where the workspace content volume is
	// mounted in the operator: <path>/<namespace>/ is a workspace's content
	// subtree, a hosted ArenaProject's repository is
	// arena/sources/<project> in it (arenajob.md names this flag).
	workspaceContentPath = flag.String("workspace-content-path", "",
		"mount of the workspace content volume; a hosted ArenaProject's git repository is <path>/<namespace>/arena/sources/<project>. "+
			"Empty: hosted projects are Failed (ContentRootNotSet) and runs write their output to scratch space")
)

// arenaGitHosts are the hosts an external ArenaProject's spec.git.secretRef
// credentials may be sent to (--arena-git-hosts, repeatable and
// comma-separated; canonical host:port). Empty, the default: none, so a
// project with a secretRef is Failed (CredentialsHostNotAllowed) and its
// Secret is not read.
var arenaGitHosts []string

func init() {
	flag.Func("arena-git-hosts",
		"comma-separated host or host:port list (host alone means port 443; repeatable) to which an external ArenaProject's "+
			"spec.git.secretRef credentials may be sent over https; default none: a project with a secretRef to any other URL "+
			"is Failed (CredentialsHostNotAllowed) and its Secret is not read",
		func(s string) error {
			hosts, err := netguard.ParseHostPorts(s)
			arenaGitHosts = append(arenaGitHosts, hosts...)
			return err
		})
}

// arenaConfig is the Arena controllers' shared configuration, from the
// flags (the operator-wide queue URL is added by the ArenaRun controller's
// setup, which reads its file). The ArenaJob controller runs on the real
// clock.
func arenaConfig() arenasetup.Config {
	return arenasetup.Config{
		Source:      source.Config{ContentRoot: *workspaceContentPath, CredentialHosts: arenaGitHosts},
		WorkerImage: arenaWorkerImage,
		License:     licenseStore,
	}
}
