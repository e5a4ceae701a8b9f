package main

import (
	"flag"

	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// operatorFlags are the operator's command line, one group per topic. Each
// group is declared and bound in the file of the code that reads it, so a
// flag's help text stays beside its use; main binds every group to the
// process's command line and parses it once, and a test binds a fresh
// operatorFlags to a flag set of its own.
type operatorFlags struct {
	servers      serverFlags
	watch        watchFlags
	admission    admissionFlags
	podSecurity  podSecurityFlags
	workers      workerFlags
	agentRuntime agentRuntimeFlags
	platform     platformFlags
	redisTenant  redisTenantFlags
	provider     providerFlags
	prober       proberFlags
	arena        arenaFlags
	license      licenseFlags
	policies     policyFlags
	audit        auditFlags
	deployAPI    deployAPIFlags
	catalog      catalogFlags
	// zap are controller-runtime's logger flags (--zap-*).
	zap zap.Options
}

// bind registers every group's flags on fs.
func (f *operatorFlags) bind(fs *flag.FlagSet) {
	f.servers.bind(fs)
	f.watch.bind(fs)
	f.admission.bind(fs)
	f.podSecurity.bind(fs)
	f.workers.bind(fs)
	f.agentRuntime.bind(fs)
	f.platform.bind(fs)
	f.redisTenant.bind(fs)
	f.provider.bind(fs)
	f.prober.bind(fs)
	f.arena.bind(fs)
	f.license.bind(fs)
	f.policies.bind(fs)
	f.audit.bind(fs)
	f.deployAPI.bind(fs)
	f.catalog.bind(fs)
	f.zap.BindFlags(fs)
}
