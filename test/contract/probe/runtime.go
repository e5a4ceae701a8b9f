package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// serviceAccountTokenPath is where client-go's in-cluster config finds a
// token; the runtime container must not have one.
const serviceAccountTokenPath = workload.ServiceAccountMountPath + "/token"

// runtime checks the runtime container's contract: the pack, the tools
// file and each handler's credential, token and header files, the
// providers' credentials, and no Kubernetes token.
func (p *probe) runtime() {
	if path := os.Getenv(workload.EnvPromptPackPath); path != "" {
		p.pack(path)
	}
	if path := os.Getenv(workload.EnvToolsConfigPath); path != "" {
		p.tools(path)
	}
	p.providers()
	p.a2aClients()
	if _, err := os.Stat(p.host(serviceAccountTokenPath)); err == nil {
		p.problem("sa-token-mounted", "", serviceAccountTokenPath,
			"the runtime container has a Kubernetes ServiceAccount token; it runs the tenant's image and must not")
	}
}

func (p *probe) pack(path string) {
	data, err := p.readFile(path)
	if err != nil {
		p.problem("pack-unreadable", "", path, "%s names a file that cannot be read: %v", workload.EnvPromptPackPath, err)
		return
	}
	p.read("pack", path, "")
	if !json.Valid(data) {
		p.problem("pack-invalid", "", path, "the pack is not valid JSON")
	}
}

// tools reads the tools file and every file it names.
func (p *probe) tools(path string) {
	raw, err := p.readFile(path)
	if err != nil {
		p.problem("tools-unreadable", "", path, "%s names a file that cannot be read: %v", workload.EnvToolsConfigPath, err)
		return
	}
	p.read("tools-file", path, "")
	var f workload.ToolsFile
	if err := yaml.UnmarshalStrict(raw, &f); err != nil {
		p.problem("tools-invalid", "", path, "the tools file is not a ToolsFile: %v", err)
		return
	}
	// Every credential value read, to look for in the tools file.
	var secrets [][]byte
	for _, h := range f.Handlers {
		if cf := h.Auth.CredentialFile; cf != "" {
			data, err := p.readFile(cf)
			switch {
			case err != nil:
				p.problem("credential-missing", h.Name, cf, "handler %s's credential file is absent (%v): the runtime refuses its calls", h.Name, errKind(err))
			case len(bytes.TrimSpace(data)) == 0:
				p.problem("credential-missing", h.Name, cf, "handler %s's credential file is empty: the runtime refuses its calls", h.Name)
			default:
				p.read("credential-file", cf, h.Name)
				secrets = append(secrets, bytes.TrimSpace(data))
			}
		} else if h.Auth.Type == v1alpha1.ToolRegistryAuthTypeBearer || h.Auth.Type == v1alpha1.ToolRegistryAuthTypeBasic {
			p.problem("credential-unnamed", h.Name, "", "handler %s has auth type %s and no credentialFile", h.Name, h.Auth.Type)
		}
		if tf := h.Auth.TokenFile; tf != "" {
			p.token(h.Name, tf, h.Auth.Audience, &secrets)
		} else if h.Auth.Type == v1alpha1.ToolRegistryAuthTypeServiceAccount {
			p.problem("token-unnamed", h.Name, "", "handler %s has auth type serviceAccount and no tokenFile", h.Name)
		}
		names := make([]string, 0, len(h.HeadersFromFiles))
		for name := range h.HeadersFromFiles {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			hf := h.HeadersFromFiles[name]
			if hf == "" {
				p.problem("header-unnamed", h.Name, "", "handler %s's header %s names no file", h.Name, name)
				continue
			}
			data, err := p.readFile(hf)
			if err != nil || len(bytes.TrimSpace(data)) == 0 {
				p.problem("header-missing", h.Name, hf, "handler %s's header %s file is absent or empty", h.Name, name)
				continue
			}
			p.read("header-file", hf, h.Name)
			secrets = append(secrets, bytes.TrimSpace(data))
		}
	}
	for _, s := range secrets {
		if bytes.Contains(raw, s) {
			p.problem("credential-in-configmap", "", path, "the tools file holds a value found in a credential file")
		}
	}
}

// token checks a serviceAccount handler's token: present, a JWT, its aud
// holding audience.
func (p *probe) token(handler, path, audience string, secrets *[][]byte) {
	data, err := p.readFile(path)
	if err != nil {
		p.problem("token-missing", handler, path, "handler %s's token file is absent (%v)", handler, errKind(err))
		return
	}
	p.read("tool-token", path, handler)
	tok := strings.TrimSpace(string(data))
	*secrets = append(*secrets, []byte(tok))
	aud, err := jwtAudiences(tok)
	if err != nil {
		p.problem("token-invalid", handler, path, "handler %s's token is not a JWT: %v", handler, err)
		return
	}
	if audience == "" || !slices.Contains(aud, audience) {
		p.problem("token-audience", handler, path, "handler %s's token has audiences %v, want %q", handler, aud, audience)
	}
}

// jwtAudiences decodes (without verifying) a JWT's aud claim: a string or
// a list.
func jwtAudiences(tok string) ([]string, error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return nil, errString("not three dot-separated parts")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, err
	}
	var claims struct {
		Aud json.RawMessage `json:"aud"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return nil, err
	}
	var one string
	if json.Unmarshal(claims.Aud, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(claims.Aud, &many); err != nil {
		return nil, errString("no aud claim")
	}
	return many, nil
}

// providers checks each OMNIA_PROVIDERS entry has its variables and, when
// its Provider has a credential, the credential.
func (p *probe) providers() {
	list := os.Getenv(workload.EnvProviders)
	if list == "" {
		return
	}
	for _, name := range strings.Split(list, ",") {
		pre := workload.ProviderEnvPrefix(name)
		if os.Getenv(pre+"TYPE") == "" {
			p.problem("provider-env-missing", name, "", "%sTYPE is not set", pre)
		}
		raw := os.Getenv(pre + "SPEC")
		var spec v1alpha1.ProviderSpec
		if err := json.Unmarshal([]byte(raw), &spec); err != nil {
			p.problem("provider-spec-invalid", name, "", "%sSPEC is not a Provider spec: %v", pre, err)
			continue
		}
		p.read("provider-env", pre+"*", name)
		c := spec.Credential
		switch {
		case c == nil:
		case c.SecretRef != nil:
			if os.Getenv(pre+"API_KEY") == "" {
				p.problem("provider-credential-missing", name, "", "provider %s has a secretRef credential and %sAPI_KEY is empty", name, pre)
			} else {
				p.read("provider-credential", pre+"API_KEY", name)
			}
		case c.EnvVar != "":
			named := os.Getenv(pre + "CREDENTIAL_ENV")
			if named == "" || os.Getenv(named) == "" {
				p.problem("provider-credential-missing", name, "", "provider %s's credential variable %q (%sCREDENTIAL_ENV) is not set", name, named, pre)
			} else {
				p.read("provider-credential", named, name)
			}
		case c.FilePath != "":
			fp := os.Getenv(pre + "CREDENTIAL_FILE")
			data, err := p.readFile(fp)
			if fp == "" || err != nil || len(bytes.TrimSpace(data)) == 0 {
				p.problem("provider-credential-missing", name, fp, "provider %s's credential file (%sCREDENTIAL_FILE) is absent or empty", name, pre)
			} else {
				p.read("provider-credential", fp, name)
			}
		}
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// errKind says why a file could not be read without its full host path.
func errKind(err error) string {
	switch {
	case os.IsNotExist(err):
		return "not found"
	case os.IsPermission(err):
		return "permission denied"
	}
	return "unreadable"
}

// a2aClients checks each A2A client's token file: a missing one means each
// call to that agent fails (the spec's "A missing Secret does not hold the
// pod"), reported as a2a-token-missing.
func (p *probe) a2aClients() {
	raw := os.Getenv(workload.EnvA2AClients)
	if raw == "" {
		return
	}
	var clients []workload.A2AClientConfig
	if err := json.Unmarshal([]byte(raw), &clients); err != nil {
		p.problem("a2a-clients-invalid", "", "", "%s is not the documented JSON list: %v", workload.EnvA2AClients, err)
		return
	}
	for _, c := range clients {
		if c.URL == "" {
			p.problem("a2a-client-url", c.Name, "", "A2A client %q has no url", c.Name)
		}
		if c.TokenFile == "" {
			continue
		}
		if data, err := p.readFile(c.TokenFile); err != nil || len(bytes.TrimSpace(data)) == 0 {
			p.problem("a2a-token-missing", c.Name, c.TokenFile, "A2A client %q: no token at %s; each call to it fails", c.Name, c.TokenFile)
			continue
		}
		p.read("a2a-token", c.TokenFile, c.Name)
	}
}
