package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// omniactl client-key mint writes an agent's client key Secret
// (agentruntime.md § Client key Secret): name agent-<agent>-clientkey-<id>,
// the labels omnia.altairalabs.ai/credential-kind: agent-client-key and
// omnia.altairalabs.ai/agent: <agent>, an owner reference to the
// AgentRuntime's UID, and data.keyHash, the raw 32-byte SHA-256 digest of a
// fresh token (32 bytes from crypto/rand, base64url without padding: the
// string a caller presents). The token is printed once, on stderr or into
// --token-file; only its hash is stored. Optional data.scopes (a JSON
// string map) and data.expiresAt (RFC 3339) are validated first.

const clientKeyUsage = `omniactl client-key mint writes an agent's client key Secret.

Usage:
  omniactl client-key mint --agent NAME --namespace NS [--id ID] [--scopes JSON] [--expires-at RFC3339]
                           [--agent-uid UID | [--kubeconfig FILE] [--context NAME]] [--create]
                           [--token-file FILE] [-o yaml|json]

The Secret is agent-<agent>-clientkey-<id> (--id default: 8 random hex
characters; the id is the key's subject). Its owner reference names the
AgentRuntime's UID: --agent-uid, or else looked up in the cluster of the
kubeconfig. Without --create the Secret is written to stdout (kubectl apply
-f - takes it); with --create it is created in the cluster.

The token is printed once: on stderr, or into --token-file (created with
mode 0600, never overwritten). The Secret holds only its SHA-256 digest.

--scopes is a JSON object of string values, the key's claims;
--expires-at an RFC 3339 time in the future. Without it the key never expires.

Exit status: 0 written, 2 unusable input or a cluster error.
`

// Labels and keys of a client key Secret (agentruntime.md § Client key Secret).
const (
	clientKeyCredentialKindLabel = "omnia.altairalabs.ai/credential-kind"
	clientKeyCredentialKind      = "agent-client-key"
	clientKeyAgentLabel          = "omnia.altairalabs.ai/agent"
	clientKeyHashKey             = "keyHash"
	clientKeyScopesKey           = "scopes"
	clientKeyExpiresAtKey        = "expiresAt"
	clientKeyTokenBytes          = 32
)

func runClientKey(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "mint" {
		fmt.Fprint(stderr, clientKeyUsage)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return exitOK
		}
		return exitInput
	}
	return runClientKeyMint(ctx, args[1:], stdout, stderr, time.Now())
}

// mintFlags are client-key mint's flags.
type mintFlags struct {
	agent, namespace, id, scopes, expiresAt, agentUID string
	kubeconfig, context, tokenFile, output            string
	create                                            bool
}

func runClientKeyMint(ctx context.Context, args []string, stdout, stderr io.Writer, now time.Time) int {
	var f mintFlags
	fs := flag.NewFlagSet("client-key mint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.agent, "agent", "", "the AgentRuntime's name (required)")
	fs.StringVar(&f.namespace, "namespace", "", "the AgentRuntime's namespace (required)")
	fs.StringVar(&f.namespace, "n", "", "shorthand for --namespace")
	fs.StringVar(&f.id, "id", "", "the key's id, the part of the Secret name after -clientkey- (default: 8 random hex characters)")
	fs.StringVar(&f.scopes, "scopes", "", `the key's claims: a JSON object of string values, e.g. {"role":"editor"}`)
	fs.StringVar(&f.expiresAt, "expires-at", "", "when the key expires, RFC 3339 (default: never)")
	fs.StringVar(&f.agentUID, "agent-uid", "", "the AgentRuntime's UID (default: looked up in the cluster)")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&f.context, "context", "", "kubeconfig context (default: the current context)")
	fs.BoolVar(&f.create, "create", false, "create the Secret in the cluster instead of writing it to stdout")
	fs.StringVar(&f.tokenFile, "token-file", "", "write the token to this new file (mode 0600) instead of stderr")
	fs.StringVar(&f.output, "o", "yaml", "Secret output format: yaml or json")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitInput
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "omniactl client-key mint: "+format+"\n", a...)
		return exitInput
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	s, err := mintSecretShape(f, now)
	if err != nil {
		return fail("%v", err)
	}
	if f.output != "yaml" && f.output != "json" {
		return fail("-o must be yaml or json, got %q", f.output)
	}

	var c client.Client
	if f.agentUID == "" || f.create {
		if c, err = clientKeyClient(f.kubeconfig, f.context); err != nil {
			return fail("%v", err)
		}
	}
	uid := types.UID(f.agentUID)
	if uid == "" {
		ar := &v1alpha1.AgentRuntime{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: f.namespace, Name: f.agent}, ar); err != nil {
			return fail("looking up AgentRuntime %s/%s for its UID: %v", f.namespace, f.agent, err)
		}
		uid = ar.UID
	}
	s.OwnerReferences = []metav1.OwnerReference{{APIVersion: v1alpha1.GroupVersion.String(), Kind: "AgentRuntime", Name: f.agent, UID: uid}}

	token, hash, err := newClientKeyToken()
	if err != nil {
		return fail("generating the token: %v", err)
	}
	s.Data[clientKeyHashKey] = hash
	// The token goes out before the Secret is written anywhere, and only
	// once: a failure after this leaves an unused token, never a stored
	// hash whose token was lost.
	if f.tokenFile != "" {
		tf, err := os.OpenFile(f.tokenFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return fail("--token-file: %v", err)
		}
		_, werr := io.WriteString(tf, token+"\n")
		if err := errors.Join(werr, tf.Close()); err != nil {
			return fail("--token-file: %v", err)
		}
	}

	if f.create {
		if err := c.Create(ctx, s); err != nil {
			return fail("creating Secret %s/%s: %v", s.Namespace, s.Name, err)
		}
		fmt.Fprintf(stdout, "secret/%s created in namespace %s\n", s.Name, s.Namespace)
	} else {
		var out []byte
		if f.output == "json" {
			out, err = json.MarshalIndent(s, "", "  ")
			out = append(out, '\n')
		} else {
			out, err = yaml.Marshal(s)
		}
		if err != nil {
			return fail("encoding the Secret: %v", err)
		}
		if _, err := stdout.Write(out); err != nil {
			return fail("writing the Secret: %v", err)
		}
	}
	if f.tokenFile == "" {
		fmt.Fprintf(stderr, "client key token for %s/%s (shown once; only its SHA-256 is stored):\n%s\n", s.Namespace, s.Name, token)
	} else {
		fmt.Fprintf(stderr, "client key token for %s/%s written to %s\n", s.Namespace, s.Name, f.tokenFile)
	}
	return exitOK
}

// mintSecretShape validates the flags and builds the Secret without its
// owner reference and key hash.
func mintSecretShape(f mintFlags, now time.Time) (*corev1.Secret, error) {
	if f.agent == "" {
		return nil, errors.New("--agent is required")
	}
	if errs := validation.IsDNS1123Label(f.agent); len(errs) > 0 {
		return nil, fmt.Errorf("--agent %q: %s", f.agent, strings.Join(errs, "; "))
	}
	if f.namespace == "" {
		return nil, errors.New("--namespace is required")
	}
	if errs := validation.IsDNS1123Label(f.namespace); len(errs) > 0 {
		return nil, fmt.Errorf("--namespace %q: %s", f.namespace, strings.Join(errs, "; "))
	}
	id := f.id
	if id == "" {
		b := make([]byte, 4)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		id = hex.EncodeToString(b)
	}
	name := "agent-" + f.agent + "-clientkey-" + id
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 || validation.IsDNS1123Label(id) != nil {
		return nil, fmt.Errorf("--id %q: the Secret name %q must be a DNS subdomain and the id lower-case letters, digits and '-'", id, name)
	}
	data := map[string][]byte{}
	if f.scopes != "" {
		var m map[string]string
		if err := json.Unmarshal([]byte(f.scopes), &m); err != nil || m == nil {
			return nil, fmt.Errorf(`--scopes: want a JSON object of string values, e.g. {"role":"editor"}`)
		}
		compact, _ := json.Marshal(m)
		data[clientKeyScopesKey] = compact
	}
	if f.expiresAt != "" {
		t, err := time.Parse(time.RFC3339, f.expiresAt)
		if err != nil {
			return nil, fmt.Errorf("--expires-at %q: want an RFC 3339 time, e.g. 2027-01-31T00:00:00Z", f.expiresAt)
		}
		if !t.After(now) {
			return nil, fmt.Errorf("--expires-at %q is not in the future", f.expiresAt)
		}
		data[clientKeyExpiresAtKey] = []byte(t.UTC().Format(time.RFC3339))
	}
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.namespace, Labels: map[string]string{
			clientKeyCredentialKindLabel: clientKeyCredentialKind,
			clientKeyAgentLabel:          f.agent,
		}},
		Type: corev1.SecretTypeOpaque,
		Data: data,
	}, nil
}

// newClientKeyToken returns a fresh token and the raw SHA-256 digest of it.
func newClientKeyToken() (string, []byte, error) {
	b := make([]byte, clientKeyTokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", nil, err
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(token))
	return token, sum[:], nil
}

// clientKeyClient is a client of the kubeconfig's cluster.
func clientKeyClient(kubeconfig, contextName string) (client.Client, error) {
	conn, err := connect(kubeconfig, contextName)
	if err != nil {
		return nil, err
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return client.New(conn.config, client.Options{Scheme: scheme})
}
