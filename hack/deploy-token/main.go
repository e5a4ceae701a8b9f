// Command deploy-token mints a deploy API token with `make run`'s
// development key (<state>/deploy-api/signing-key.pem), for curl or
// omniactl against the local operator:
//
//	TOKEN=$(go run ./hack/deploy-token -workspace default -role editor)
//	curl --cacert .local/deploy-api/ca.crt -H "Authorization: Bearer $TOKEN" \
//	  "$(cat .local/deploy-api/url)/api/v1/workspaces/default/deploy-profile"
//
// Only that local operator trusts the key.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/altairalabs/omnia/deploy/auth"
	"github.com/altairalabs/omnia/deploy/auth/authtest"
)

func main() {
	state := flag.String("state-dir", ".local", "make run's state directory")
	workspace := flag.String("workspace", "default", "the token's workspace")
	namespace := flag.String("namespace", "", "the workspace's namespace (default: the workspace's name)")
	role := flag.String("role", string(auth.RoleEditor), "viewer, editor, admin or owner")
	sub := flag.String("sub", "local-developer", "the user (sub); empty for none")
	ttl := flag.Duration("ttl", time.Hour, "validity")
	flag.Parse()
	if *namespace == "" {
		*namespace = *workspace
	}
	path := filepath.Join(*state, "deploy-api", "signing-key.pem")
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(os.Stderr, "deploy-token: %v (run `make run` first)\n", err)
		os.Exit(1)
	}
	signer, err := authtest.LoadOrCreateES256(path, "local-dev")
	if err != nil {
		fmt.Fprintln(os.Stderr, "deploy-token:", err)
		os.Exit(1)
	}
	c := authtest.Claims(*sub, *workspace, *namespace, auth.Role(*role), time.Now())
	c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(*ttl))
	tok, err := signer.Mint(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "deploy-token:", err)
		os.Exit(1)
	}
	fmt.Println(tok)
}
