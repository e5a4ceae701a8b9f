package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// facade checks the facade container's contract: with only the mounted
// ServiceAccount token it may get its own AgentRuntime, and is forbidden
// to get another agent. It lists the namespace's Secrets by the client-key
// selector OMNIA_EXTERNAL_AUTH names when client keys are on (and reports
// each key Secret it sees); without them listing Secrets is forbidden.
func (p *probe) facade() {
	dir := workload.ServiceAccountMountPath
	tokenBytes, err := p.readFile(dir + "/token")
	if err != nil {
		p.problem("sa-token-missing", "", dir+"/token", "the facade has no ServiceAccount token (%s)", errKind(err))
		return
	}
	p.read("sa-token", dir+"/token", "")
	token := strings.TrimSpace(string(tokenBytes))

	caFile := p.host(dir + "/ca.crt")
	if _, err := os.Stat(caFile); err == nil {
		p.read("ca", dir+"/ca.crt", "")
	} else {
		p.problem("ca-missing", "", dir+"/ca.crt", "the facade has no ca.crt next to its token (%s)", errKind(err))
		caFile = os.Getenv(envCA)
	}

	ns := os.Getenv(workload.EnvAgentNamespace)
	if data, err := p.readFile(dir + "/namespace"); err == nil {
		p.read("namespace", dir+"/namespace", "")
		if mounted := strings.TrimSpace(string(data)); mounted != ns {
			p.problem("namespace-mismatch", "", dir+"/namespace", "the mounted namespace %q is not %s=%q", mounted, workload.EnvAgentNamespace, ns)
			if ns == "" {
				ns = mounted
			}
		}
	} else {
		p.problem("namespace-missing", "", dir+"/namespace", "no namespace file next to the token (%s)", errKind(err))
	}
	name := os.Getenv(workload.EnvAgentName)
	if name == "" || ns == "" {
		p.problem("identity-missing", "", "", "%s=%q, namespace %q: the facade cannot find its agent", workload.EnvAgentName, name, ns)
		return
	}
	host := os.Getenv(envAPIServer)
	if host == "" {
		p.problem("api-server-missing", "", "", "%s is not set (the harness stands in for the kubernetes Service)", envAPIServer)
		return
	}

	// Only the mounted token: no other credential, no kubeconfig.
	cfg := &rest.Config{
		Host:            host,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: caFile},
		Timeout:         10 * time.Second,
	}
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		p.problem("client", "", "", "building a client from the mounted token: %v", err)
		return
	}
	group := "/apis/" + v1alpha1.GroupVersion.Group + "/" + v1alpha1.GroupVersion.Version + "/namespaces/" + ns + "/agentruntimes/"
	p.expect(rc, "get own AgentRuntime", group+name, http.StatusOK)
	if sel := clientKeySelector(); sel != "" {
		p.clientKeys(rc, "/api/v1/namespaces/"+ns+"/secrets", sel)
	} else {
		p.expect(rc, "list Secrets", "/api/v1/namespaces/"+ns+"/secrets", http.StatusForbidden)
	}
	p.expect(rc, "get another AgentRuntime", group+name+"-not-this-agent", http.StatusForbidden)
}

// expect GETs path with the token and checks the answer's status.
func (p *probe) expect(rc *rest.RESTClient, what, path string, want int) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var code int
	res := rc.Get().AbsPath(path).Do(ctx).StatusCode(&code)
	p.read("api-get", path, "")
	switch {
	case code == want:
	case code == 0:
		p.problem("api-unreachable", "", path, "%s: %v", what, res.Error())
	case code == http.StatusUnauthorized:
		p.problem("unauthenticated", "", path, "%s: the API server refused the token (HTTP 401)", what)
	case want == http.StatusForbidden:
		// Any answer past authorization (a 404 included) means allowed.
		p.problem("allowed", "", path, "%s: allowed (HTTP %d), want forbidden", what, code)
	case want < 300 && code == http.StatusForbidden:
		p.problem("denied", "", path, "%s: forbidden, want allowed", what)
	default:
		p.problem("unexpected-status", "", path, "%s: HTTP %d, want %d", what, code, want)
	}
}

// clientKeySelector is OMNIA_EXTERNAL_AUTH's clientKeys.secretLabelSelector;
// empty when client keys are off.
func clientKeySelector() string {
	var cfg struct {
		ClientKeys *struct {
			SecretLabelSelector string `json:"secretLabelSelector"`
		} `json:"clientKeys"`
	}
	if err := json.Unmarshal([]byte(os.Getenv(workload.EnvExternalAuth)), &cfg); err != nil || cfg.ClientKeys == nil {
		return ""
	}
	return cfg.ClientKeys.SecretLabelSelector
}

// clientKeys lists the client key Secrets as the facade's watch does, and
// reports each one whose keyHash is the 32-byte digest the spec requires.
func (p *probe) clientKeys(rc *rest.RESTClient, path, selector string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var code int
	res := rc.Get().AbsPath(path).Param("labelSelector", selector).Do(ctx).StatusCode(&code)
	p.read("api-get", path+"?labelSelector="+selector, "")
	if code != http.StatusOK {
		p.problem("denied", "", path, "listing the client key Secrets (%s): HTTP %d, want allowed", selector, code)
		return
	}
	raw, err := res.Raw()
	if err != nil {
		p.problem("client-keys-unreadable", "", path, "reading the client key list: %v", err)
		return
	}
	var list struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Data map[string][]byte `json:"data"`
		} `json:"items"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		p.problem("client-keys-unreadable", "", path, "decoding the client key list: %v", err)
		return
	}
	for _, it := range list.Items {
		if len(it.Data["keyHash"]) != 32 {
			p.problem("client-key-hash", "", it.Metadata.Name, "client key Secret %s: keyHash is %d bytes, want 32", it.Metadata.Name, len(it.Data["keyHash"]))
			continue
		}
		p.read("client-key", it.Metadata.Name, "")
	}
}
