package main

import (
	"context"
	"flag"

	"github.com/redis/go-redis/v9"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/redisacl"
)

// redisTenantFlags is --redis-tenant-credentials: each namespace gets its
// own Redis ACL user on the operator's Redis (the arena queue's
// --arena-queue-redis-url and the async queue's redis.default), restricted
// to the namespace's own keys (docs/security.md § Redis). Off, every
// namespace's pods get the operator's URL and password: for a Redis without
// ACL (before 6) or an operator whose Redis user may not run ACL SETUSER.
type redisTenantFlags struct {
	credentials bool
}

func (f *redisTenantFlags) bind(fs *flag.FlagSet) {
	fs.BoolVar(&f.credentials, "redis-tenant-credentials", true,
		"give each namespace its own Redis ACL user, limited to its own keys, on the operator-wide arena and async queue Redis "+
			"(the operator's URL must be allowed ACL SETUSER and a hash omnia:tenant-credentials); false: every namespace gets the operator's URL")
}

// tenantProvisioner returns a redisacl.Provisioner closed when mgr stops,
// or nil when --redis-tenant-credentials is off. Its admin connections
// read through the queue's reply guard.
func (f redisTenantFlags) tenantProvisioner(mgr ctrl.Manager, clientName string) (*redisacl.Provisioner, error) {
	if !f.credentials {
		return nil, nil
	}
	p := newTenantProvisioner(clientName)
	err := mgr.Add(manager.RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		return p.Close()
	}))
	return p, err
}

// newTenantProvisioner is a redisacl.Provisioner whose admin connections
// read through the queue's reply guard and name themselves clientName.
func newTenantProvisioner(clientName string) *redisacl.Provisioner {
	return redisacl.NewProvisioner(func(u string) (redis.UniversalClient, error) {
		return queue.ConnectWith(u, queue.ConnectOptions{ClientName: clientName})
	}, 0)
}
