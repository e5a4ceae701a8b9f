package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/altairalabs/omnia/deploy/intent"
)

// The deploy client: `omniactl deploy apply` posts a deploy intent to the
// operator's deploy API, `omniactl deploy plan` a plan request. It is a
// thin client: the operator decodes, validates and answers; the client
// reads the file, sends it over verified TLS with the caller's token, and
// prints the answer.
//
// Exit status: 0 every resource applied (or a plan
// with no diagnostic), 1 a partial apply (207) or a refusal (401, 403,
// 409, 413, 429, 503, or any other error status; a plan with diagnostics),
// 2 unusable input: a file or flag the client cannot use, or a 400 from the
// server (it could not use the document).

// maxDeployFile bounds what the client reads and sends: the operator's
// deploy API refuses larger bodies anyway.
const maxDeployFile = 1 << 20

// deployTimeout bounds one request: a deploy of a few agents is seconds.
const deployTimeout = 2 * time.Minute

const deployUsage = `Usage:
  omniactl deploy apply -f INTENT.json --server URL --workspace NAME --token-file FILE [--ca-file PEM] [-o table|json]
  omniactl deploy plan  (-f ARENA.yaml | --deploy-config CONFIG.json) --server URL --workspace NAME --token-file FILE [--ca-file PEM] [-o table|json]

apply posts a deploy intent (deploy.omnia.altairalabs.ai/v1) to
POST {server}/api/v1/workspaces/{workspace}/deployments and prints each
resource's result. plan posts the kit's arena config file (-f, sent as
arenaConfig) or an already merged deploy.config object (--deploy-config, sent
as deployConfig) to .../deploy/plan and prints the bindings and diagnostics.
The token (a bearer JWT with audience omnia-operator) is read from
--token-file and never printed. The server's certificate is verified against
--ca-file, or the system's roots.

Exit status: 0 applied (plan: no diagnostic), 1 partial or refused (plan:
diagnostics), 2 unusable input (including a 400 from the server).
`

// deployFlags are the flags apply and plan share.
type deployFlags struct {
	file, deployConfig, server, workspace, tokenFile, caFile, output string
}

func (d *deployFlags) bind(fs *flag.FlagSet, plan bool) {
	if plan {
		fs.StringVar(&d.file, "f", "", "the kit's arena config file (YAML or JSON), sent as arenaConfig")
		fs.StringVar(&d.deployConfig, "deploy-config", "", "a JSON file holding a merged deploy.config object, sent as deployConfig (wins over -f)")
	} else {
		fs.StringVar(&d.file, "f", "", "the deploy intent (JSON)")
	}
	fs.StringVar(&d.server, "server", "", "the operator's deploy API, https://host:port")
	fs.StringVar(&d.workspace, "workspace", "", "the workspace the token is for")
	fs.StringVar(&d.tokenFile, "token-file", "", "file holding the bearer token")
	fs.StringVar(&d.caFile, "ca-file", "", "PEM file of the CA that signs the server's certificate (default: the system's roots)")
	fs.StringVar(&d.output, "o", "table", "output: table or json")
}

func runDeploy(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "apply" && args[0] != "plan") {
		fmt.Fprint(stderr, deployUsage)
		return exitInput
	}
	plan := args[0] == "plan"
	fs := flag.NewFlagSet("omniactl deploy "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	var d deployFlags
	d.bind(fs, plan)
	if err := fs.Parse(args[1:]); err != nil {
		return exitInput
	}
	req, err := d.request(plan)
	if err != nil {
		fmt.Fprintln(stderr, "omniactl deploy:", err)
		return exitInput
	}
	status, body, err := req.send(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "omniactl deploy:", err)
		return exitDenied
	}
	if plan {
		return printPlan(status, body, d.output, stdout, stderr)
	}
	return printApply(status, body, d.output, stdout, stderr)
}

// deployRequest is one request, ready to send.
type deployRequest struct {
	url    string
	token  string
	body   []byte
	client *http.Client
}

// request checks the flags, reads the files and builds the request.
func (d *deployFlags) request(plan bool) (*deployRequest, error) {
	switch {
	case d.server == "":
		return nil, errors.New("--server is required")
	case d.workspace == "":
		return nil, errors.New("--workspace is required")
	case d.tokenFile == "":
		return nil, errors.New("--token-file is required")
	case d.output != "table" && d.output != "json":
		return nil, fmt.Errorf("-o %q: want table or json", d.output)
	case !plan && d.file == "":
		return nil, errors.New("-f INTENT.json is required")
	case plan && d.file == "" && d.deployConfig == "":
		return nil, errors.New("-f ARENA.yaml or --deploy-config CONFIG.json is required")
	}
	base, err := url.Parse(d.server)
	if err != nil || base.Scheme != "https" || base.Host == "" {
		// The token is a credential: it goes over TLS only.
		return nil, fmt.Errorf("--server %q: want an https:// URL", d.server)
	}
	token, err := readBounded(d.tokenFile)
	if err != nil {
		return nil, err
	}
	tok := strings.TrimSpace(string(token))
	if tok == "" {
		return nil, fmt.Errorf("%s: no token", d.tokenFile)
	}
	body, route, err := d.body(plan)
	if err != nil {
		return nil, err
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if d.caFile != "" {
		pem, err := readBounded(d.caFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no PEM certificate", d.caFile)
		}
		tlsConfig.RootCAs = pool
	}
	return &deployRequest{
		url:    strings.TrimSuffix(base.String(), "/") + "/api/v1/workspaces/" + url.PathEscape(d.workspace) + route,
		token:  tok,
		body:   body,
		client: &http.Client{Timeout: deployTimeout, Transport: &http.Transport{TLSClientConfig: tlsConfig}},
	}, nil
}

// body reads the document and returns it with its route.
func (d *deployFlags) body(plan bool) ([]byte, string, error) {
	if !plan {
		b, err := readBounded(d.file)
		if err != nil {
			return nil, "", err
		}
		if !json.Valid(b) {
			return nil, "", fmt.Errorf("%s: not JSON", d.file)
		}
		return b, "/deployments", nil
	}
	var req intent.PlanRequest
	if d.deployConfig != "" {
		b, err := readBounded(d.deployConfig)
		if err != nil {
			return nil, "", err
		}
		if !json.Valid(b) {
			return nil, "", fmt.Errorf("%s: not JSON", d.deployConfig)
		}
		req.DeployConfig = b
	} else {
		b, err := readBounded(d.file)
		if err != nil {
			return nil, "", err
		}
		req.ArenaConfig = string(b)
	}
	b, err := json.Marshal(req)
	return b, "/deploy/plan", err
}

// readBounded reads a file of at most maxDeployFile bytes.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxDeployFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxDeployFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxDeployFile)
	}
	return b, nil
}

// send posts the body and returns the status and the (bounded) answer.
func (r *deployRequest) send(ctx context.Context) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(r.body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+r.token)
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4*maxDeployFile))
	if err != nil {
		return 0, nil, fmt.Errorf("reading the answer: %w", err)
	}
	return resp.StatusCode, body, nil
}

// refused prints an error answer and returns its exit code: 2 for a 400
// (the server could not use the document), 1 otherwise.
func refused(status int, body []byte, stderr io.Writer) int {
	var e intent.ErrorResponse
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	fmt.Fprintf(stderr, "omniactl deploy: %d %s: %s\n", status, http.StatusText(status), oneLine(msg))
	// A refused intent names each broken rule: ID, field, message.
	for _, f := range e.Findings {
		fmt.Fprintf(stderr, "  [%s] %s: %s\n", f.RuleID, f.Field, oneLine(f.Message))
	}
	if status == http.StatusBadRequest {
		return exitInput
	}
	return exitDenied
}

// printApply prints a deploy's answer. 200 and 207 carry the results; so
// do 409 and 503, which are refusals.
func printApply(status int, body []byte, output string, stdout, stderr io.Writer) int {
	var res intent.DeployResult
	hasResults := json.Unmarshal(body, &res) == nil && res.Results != nil
	switch {
	case status == http.StatusOK || status == http.StatusMultiStatus:
		if !hasResults {
			fmt.Fprintf(stderr, "omniactl deploy: %d without results: %s\n", status, oneLine(string(body)))
			return exitDenied
		}
	case (status == http.StatusConflict || status == http.StatusServiceUnavailable) && hasResults:
		fmt.Fprintf(stderr, "omniactl deploy: %d %s: nothing was written\n", status, http.StatusText(status))
	default:
		return refused(status, body, stderr)
	}
	if output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KIND\tNAME\tACTION\tERROR")
		for _, r := range res.Results {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Kind, r.Name, r.Action, oneLine(r.Error))
		}
		_ = tw.Flush()
	}
	if status == http.StatusOK && res.Succeeded {
		return exitOK
	}
	return exitDenied
}

// printPlan prints a plan's answer.
func printPlan(status int, body []byte, output string, stdout, stderr io.Writer) int {
	if status != http.StatusOK {
		return refused(status, body, stderr)
	}
	var res intent.PlanResponse
	if err := json.Unmarshal(body, &res); err != nil {
		fmt.Fprintf(stderr, "omniactl deploy: the plan's answer is not a plan: %v\n", err)
		return exitDenied
	}
	if output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "BINDING\tNAME\tBINDS TO\tRESOLVED")
		for _, p := range res.Providers {
			fmt.Fprintf(tw, "provider (%s)\t%s\t%s\t%t\n", p.Role, p.Name, p.Ref, p.Resolved)
		}
		fmt.Fprintf(tw, "toolRegistry (%s)\t%s\t\t%t\n", res.ToolRegistry.Mode, res.ToolRegistry.Name, res.ToolRegistry.Resolved)
		for _, s := range res.Skills {
			fmt.Fprintf(tw, "skill\t\t%s\t%t\n", s.Source, s.Resolved)
		}
		_ = tw.Flush()
		if len(res.Diagnostics) > 0 {
			fmt.Fprintln(stdout)
			tw = tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CODE\tPATH\tMESSAGE\tREMEDIATION")
			for _, d := range res.Diagnostics {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.Code, d.Path, oneLine(d.Message), oneLine(d.Remediation))
			}
			_ = tw.Flush()
		}
	}
	if len(res.Diagnostics) > 0 {
		return exitDenied
	}
	return exitOK
}
