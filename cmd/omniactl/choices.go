package main

// choices is the body of docs/rules.md's section "Choices where the spec is
// ambiguous": where the spec does not say who enforces a rule, how severe it is
// or which reason it reports, the choice made and why. Append items here (one
// Go string per Markdown line) and regenerate the doc:
//
//	go run ./cmd/omniactl rules -o markdown > docs/rules.md
const choices = "" +
	"### Who enforces what\n" +
	"\n" +
	"- **Schema (API server) vs webhook.** A rule the spec calls \"CEL-validated\", \"CEL-gated\", \"rejected by the API server\" or states as a pattern, range or enum is a schema marker; everything else the spec says is refused is a Go rule the webhook enforces (`deny`); a problem the spec reports only as a condition is a Go rule that warns at admission and sets that condition on reconcile.\n" +
	"- **`arenajob/arena-file-no-glob`** is a schema (CEL) rule: the page says the file \"is rejected when the ArenaJob is applied\" without naming the webhook, and the webhook can be off.\n" +
	"- **Type-conditional ToolRegistry requirements** (`httpConfig` for http, `tool` for http/grpc/client, `grpcConfig.endpoint` without a sandbox, bearer/basic needing a secret) are Go `deny` rules; the schema only forbids what a `platform` handler may not carry and the sandbox table the page says the CRD requires.\n" +
	"- **`headersFromSecret` collisions**: the schema refuses the exact `Authorization`/`authorization` and workload-identity header; a Go rule refuses other letter cases (HTTP header names are case-insensitive) — a case-insensitive CEL rule exceeds the API server's cost budget.\n" +
	"- **Cross-namespace references**: `providers[].providerRef.namespace` and `a2aClients[].agentRuntimeRef.namespace` are refused (the spec says \"refused\"); `toolRegistryRef.namespace` only warns and sets `ToolRegistryReady=False` `ToolRegistryCrossNamespace` (the spec says the agent is held Pending); an ArenaJob `providerRef.namespace` warns and sets the run's `JobCreated=False`. All are skipped for a manifest with no namespace (omniactl on an unnamespaced file).\n" +
	"- **Live PromptPack refs** (`InvalidPromptPackRef`) need the PromptPacks, a cluster fact, so the rule is reconcile-stage (severity deny, reported as `PromptPackReady=False`); at admission the webhook has no facts.\n" +
	"\n" +
	"### Severities and reasons the spec does not name\n" +
	"\n" +
	"- `credential.envVar` / `credential.filePath`: warn, `CredentialConfigured=False` with reasons `InvalidEnvVar` / `InvalidFilePath` (the spec names only the success reasons). An env var name matches `^[A-Za-z_][A-Za-z0-9_]*$`; a file path must satisfy `path.IsAbs` and `path.Clean(p) == p`.\n" +
	"- Secret lookup is two reconcile rules: `provider/secret-found` (`SecretNotFound`) and `provider/secret-key-found` (`SecretKeyMissing`, message lists the keys tried).\n" +
	"- Provider `defaults` timeouts and `pricing` values are refused at admission (no condition is named). A pricing decimal is `^[0-9]+(\\.[0-9]+)?$`.\n" +
	"- Provider `baseURL` is two admission rules, because one rule has one severity: `provider/base-url` refuses what is not an absolute http(s) URL with a host, user info, a numeric host other than a dotted quad, and literal link-local or cloud-metadata hosts (reconciled: `Ready=False` `InvalidSpec`); `provider/base-url-plain-http` warns on http and sets no condition (in-cluster vLLM and Ollama over http are common). Host names are not resolved by the catalog; the operator's dialer refuses link-local and metadata addresses after DNS.\n" +
	"- ToolRegistry probe bounds (issue #7): `spec.probe.interval` 5s–24h, `spec.probe.timeout` 100ms–60s and at most the interval (CEL, so the defaults 60s/5s stay valid), and at most 64 `spec.handlers` (bounds one registry's probe round, status and CEL cost). A value stored before the bounds is clamped by the controller.\n" +
	"- ToolRegistry `HandlersValid=False` findings use reason `ValidationFailed` (the reason the page gives `Ready` when a handler fails validation).\n" +
	"- `drainTimeout` above 600s warns (the spec describes a cap on `terminationGracePeriodSeconds`, not a refusal); `sandbox.releaseGrace` / `mountReleaseGrace` ≤ 0 are refused (\"must be greater than zero\").\n" +
	"- Every duration-string field parses as a Go duration, refused otherwise (`agentruntime/duration-format`, `toolregistry/duration-format`): an unparseable duration would stop the runtime or facade.\n" +
	"- ArenaJob threshold values: latency/ttft parse as durations ≥ 0; the four rates as numbers in 0–1; `total_cost` a finite number ≥ 0. `loadTest.duration` must be > 0; `rate` without `duration` is refused.\n" +
	"- Cron and timezone (robfig/cron `ParseStandard`, `time.LoadLocation` with embedded tzdata) warn and set `Ready=False` `InvalidSchedule` (the reconciler also sets `Stalled=True`); they apply to ArenaJob only — a run never reads its template's schedule.\n" +
	"- The removed `spec.loadTest.budgetLimit` is refused (deny) by `omniactl check` and the deploy API with its own rule, `arenajob/loadtest-budgetlimit-removed` (move it to `spec.budgetLimit`), not the generic `arenajob/schema:unknown-field`: `kubectl apply` refuses it as an unknown field, and a client without strict field validation has it pruned before a webhook could see it, so the job would run uncapped.\n" +
	"\n" +
	"### Update semantics\n" +
	"\n" +
	"- Reserved env keys: on update a facade's list is compared with the old facade of the same type; only a key not already there is refused. Reconcilers pass no old object and report every reserved key on `ReservedEnvClean`.\n" +
	"- `agentruntime/custom-facade-license`: an update of an agent that already had a custom facade is allowed, so a lapsed licence never blocks edits (finalizer removal included).\n" +
	"- ArenaRun updates that leave `spec.template` unchanged skip the template rules, so cancelling a run created before the webhook existed is never refused.\n" +
	"\n" +
	"### Kubectl\n" +
	"\n" +
	"- `agents` is an extra AgentRuntime short name beside the spec's `agent` and `ar`, so `kubectl get agents` works as the docs write it.\n" +
	"\n" +
	"### omniactl check\n" +
	"\n" +
	"- **As strict as `kubectl apply`.** `kubectl apply` asks for strict field validation, so the API server refuses a field its schema does not declare; `omniactl check` refuses it too (`<kind>/schema:unknown-field`, at any depth and under `metadata`), where it used to drop it silently as a client without strict validation would. `metadata` is validated with the API server's own validators (name a DNS subdomain, namespace a DNS label, labels, annotations and their 256 KiB total, owner references, finalizers). What the client or the API server fills in is not blamed on the manifest: a missing namespace (kubectl's `-n` or context), a name from `generateName`, and on an update (the deploy API) the stored object's `uid`, `resourceVersion` and timestamps.\n" +
	"- **Every rule at once.** `omniactl check` runs strict decoding (unknown fields), the schema (object metadata, OpenAPI and CEL, with the API server's validators), then every Go rule of both stages, and reports all findings. The API server stops at the first stage that refuses: for a manifest with an unknown field it names only the unknown fields, for one that breaks a schema rule and a Go rule only the schema finding, and the later findings appear once the earlier problems are fixed. On every row of the schema tables (accepted and rejected), the webhook rules' table and `cmd/omniactl/testdata/strict-rows.yaml` (unknown fields, metadata, updates) both give the same answer — both admit, or both refuse with the same rule IDs and fields at the stage where the API server stops (`TestSameAnswer`).\n" +
	"- **Facts from the documents given.** Provider, PromptPack, Workspace and ToolPolicy documents, ConfigMaps (a PromptPack's pack.json is checked against it) and Secrets (data and stringData keys only; values are never kept or printed) answer the reconcile-stage rules; a reference to an object not among the documents is a reconcile-stage warning (`agentruntime/provider-exists`, `provider/secret-found`, …), not a denial. A ToolPolicy or a CustomResourceDefinition document marks that optional CRD installed. There is no licence, so a custom facade is refused.\n" +
	"- **Namespaces.** A document without `metadata.namespace` stays unnamespaced unless `--namespace` is given (as `kubectl apply -n`); facts match by exact namespace, so unnamespaced documents see each other.\n" +
	"- **Severity overrides** (`--rule-severity id=deny|warn`) apply to the Go rules that run at admission, as in the operator; an ID of a schema rule (the API server enforces it) or a reconcile-stage rule (it never denies) is refused, naming it.\n" +
	"- **Unusable input** (exit 2): an unreadable path, YAML or JSON that does not parse, a document without `apiVersion` or `kind`, an `omnia.altairalabs.ai` document of an unknown kind or an unserved version. Documents are numbered from 1 per file, not counting empty ones; other kinds are skipped.\n"
