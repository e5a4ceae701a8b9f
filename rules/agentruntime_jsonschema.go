package rules

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// AgentRuntime function-mode schemas: spec.inputSchema and spec.outputSchema
// must compile as JSON Schema, as the facade compiles them at startup with
// the same library (Draft 2020-12 unless $schema says otherwise). Compilation
// is offline: the known metaschemas are embedded in the library, and any
// other reference outside the schema document is refused.

func init() {
	Default.Register(Rule{
		ID:       "agentruntime/function-schema-compiles",
		Kinds:    agentRuntimeKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "In mode function, spec.inputSchema and spec.outputSchema must compile as JSON Schema (Draft 2020-12 unless $schema says otherwise) " +
			"with no reference outside the schema itself.",
		Spec:  "agentruntime.md#inputschema",
		Check: checkAgentRuntimeFunctionSchemas,
	})
}

// agentRuntimeSchemaBase is the URL a function schema is compiled at; a
// relative $ref resolves beneath it and is refused by the loader.
const agentRuntimeSchemaBase = "mem://omnia.invalid/agentruntime/"

// agentRuntimeNoRemoteLoader refuses every URL: a function schema must be
// self-contained (the metaschemas of the known drafts never reach it).
type agentRuntimeNoRemoteLoader struct{}

var errAgentRuntimeRemoteRef = errors.New("references outside the schema are not loaded; inline the referenced schema under $defs")

func (agentRuntimeNoRemoteLoader) Load(string) (any, error) { return nil, errAgentRuntimeRemoteRef }

func checkAgentRuntimeFunctionSchemas(in Input) field.ErrorList {
	ar := agentRuntimeOf(in.Object)
	if ar == nil || !agentRuntimeIsFunction(ar) {
		return nil
	}
	var errs field.ErrorList
	for _, s := range [...]struct {
		name string
		raw  *runtime.RawExtension
	}{
		{"inputSchema", ar.Spec.InputSchema},
		{"outputSchema", ar.Spec.OutputSchema},
	} {
		if err := agentRuntimeCompileSchema(s.name, s.raw); err != nil {
			p := field.NewPath("spec", s.name)
			errs = append(errs, field.Invalid(p, "<schema>",
				p.String()+" does not compile as JSON Schema (Draft 2020-12 unless its $schema says otherwise), so the facade would not start: "+err.Error()))
		}
	}
	return errs
}

// agentRuntimeCompileSchema compiles one schema; nil for an absent one
// (function-needs-input-schema reports that).
func agentRuntimeCompileSchema(name string, raw *runtime.RawExtension) error {
	if raw == nil {
		return nil
	}
	data := raw.Raw
	if len(data) == 0 && raw.Object != nil {
		var err error
		if data, err = json.Marshal(raw.Object); err != nil {
			return err
		}
	}
	if len(data) == 0 {
		return nil
	}
	// Compiling (and validating against the draft's metaschema) dominates
	// the webhook's time on a function agent; the verdict depends only on
	// the bytes and the field name.
	return agentRuntimeSchemaVerdicts.get(agentRuntimeSchemaKey{name, sha256.Sum256(data)}, func() error {
		return agentRuntimeCompileSchemaBytes(name, data)
	})
}

type agentRuntimeSchemaKey struct {
	name string
	sum  [sha256.Size]byte
}

var agentRuntimeSchemaVerdicts = newMemo[agentRuntimeSchemaKey, error](256)

func agentRuntimeCompileSchemaBytes(name string, data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return agentRuntimeOneLine(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(agentRuntimeNoRemoteLoader{})
	url := agentRuntimeSchemaBase + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return agentRuntimeSchemaError(err, name)
	}
	if _, err := c.Compile(url); err != nil {
		return agentRuntimeSchemaError(err, name)
	}
	return nil
}

// agentRuntimeSchemaError words a compile error for the user: the internal
// URL the schema was compiled at becomes the field's name.
func agentRuntimeSchemaError(err error, name string) error {
	s := agentRuntimeOneLine(err).Error()
	url := agentRuntimeSchemaBase + name + ".json"
	s = strings.ReplaceAll(s, `"`+url+`#"`, "spec."+name)
	s = strings.ReplaceAll(s, url+"#", "spec."+name+"#")
	s = strings.ReplaceAll(s, agentRuntimeSchemaBase, "")
	return errors.New(s)
}

// agentRuntimeOneLine flattens a multi-line library error into one line.
func agentRuntimeOneLine(err error) error {
	s := strings.TrimSpace(err.Error())
	if !strings.Contains(s, "\n") {
		return err
	}
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[i]), "- "))
	}
	return errors.New(strings.Join(lines, "; "))
}
