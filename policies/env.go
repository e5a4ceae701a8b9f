package policies

import (
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/version"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/config/crd"
	"github.com/altairalabs/omnia/rules/schema"
)

// Env is what compilation needs once per process: the Omnia kinds'
// structural schemas (from the embedded CRDs), the CEL environments and the
// Rego capabilities. It is safe for concurrent use.
type Env struct {
	opts   Options
	kinds  map[string]*kindEnv
	scheme *runtime.Scheme
	rego   *regoCaps
}

// kindEnv is one matchable kind: its structural schema (with the object
// metadata a policy reads) and the CEL environment whose `object` and
// `oldObject` are typed by it.
type kindEnv struct {
	kind       string
	apiVersion string
	structural *structuralschema.Structural
	// values reads objects of the kind as CEL values
	// (rules.CELValueSchema).
	values   common.Schema
	declType *apiservercel.DeclType
	env      *cel.Env
}

var (
	defaultEnvOnce sync.Once
	defaultEnv     *Env
	defaultEnvErr  error
)

// DefaultEnv returns an Env with default Options, built once per process
// (building one compiles six CRD schemas into CEL environments).
func DefaultEnv() (*Env, error) {
	defaultEnvOnce.Do(func() { defaultEnv, defaultEnvErr = NewEnv(Options{}) })
	return defaultEnv, defaultEnvErr
}

// WithOptions returns an Env sharing e's schemas and environments with
// other Options (an Observer, a Rego timeout).
func (e *Env) WithOptions(opts Options) *Env {
	c := *e
	c.opts = opts.withDefaults()
	return &c
}

// NewEnv builds the compilation environment: the CEL base environment at the
// API server's default compatibility version (as ValidatingAdmissionPolicy
// uses), one typed environment per matchable kind, and the restricted Rego
// capabilities.
func NewEnv(opts Options) (*Env, error) {
	e := &Env{opts: opts.withDefaults(), kinds: map[string]*kindEnv{}, scheme: runtime.NewScheme()}
	if err := v1alpha1.AddToScheme(e.scheme); err != nil {
		return nil, err
	}
	base := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	namespaceType := namespaceDeclType()
	matchable := map[string]bool{}
	for _, k := range MatchKinds() {
		matchable[k] = true
	}
	err := fs.WalkDir(crd.Bases, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := fs.ReadFile(crd.Bases, path)
		if err != nil {
			return err
		}
		c := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.Unmarshal(data, c); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if !matchable[c.Spec.Names.Kind] {
			return nil
		}
		ke, err := newKindEnv(base, namespaceType, c)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		e.kinds[ke.kind] = ke
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k := range matchable {
		if e.kinds[k] == nil {
			return nil, fmt.Errorf("policies: no embedded CRD for matchable kind %s", k)
		}
	}
	if e.rego, err = newRegoCaps(); err != nil {
		return nil, err
	}
	return e, nil
}

// MatchKinds are the kinds a ValidationPolicy may match (its matchKinds
// enum).
func MatchKinds() []string {
	return []string{"AgentRuntime", "Provider", "ToolRegistry", "PromptPack", "ArenaJob", "ArenaRun"}
}

func newKindEnv(base *environment.EnvSet, namespaceType *apiservercel.DeclType, c *apiextensionsv1.CustomResourceDefinition) (*kindEnv, error) {
	if len(c.Spec.Versions) != 1 || c.Spec.Versions[0].Schema == nil {
		return nil, fmt.Errorf("CRD %s: want exactly one version with a schema", c.Name)
	}
	v := c.Spec.Versions[0]
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
		return nil, err
	}
	s, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, err
	}
	s = withObjectMeta(s)
	kind := c.Spec.Names.Kind
	// A stable type name: unlike a CRD's self type it is not hidden, but no
	// expression can name it (CEL has no type literals for it in our env).
	declType := model.SchemaDeclType(s, true).MaybeAssignTypeName("omnia.altairalabs.ai." + kind)
	envSet, err := base.Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions: []cel.EnvOption{
			cel.Variable(varObject, declType.CelType()),
			cel.Variable(varOldObject, declType.CelType()),
			cel.Variable(varNamespace, namespaceType.CelType()),
			cel.Variable(varParams, cel.DynType),
		},
		DeclTypes: []*apiservercel.DeclType{declType, namespaceType},
	}, environment.StrictCostOpt)
	if err != nil {
		return nil, fmt.Errorf("CEL environment for %s: %w", kind, err)
	}
	return &kindEnv{
		kind:       kind,
		apiVersion: c.Spec.Group + "/" + v.Name,
		structural: s,
		values:     schema.CELValueSchema(s),
		declType:   declType,
		env:        envSet.NewExpressionsEnv(),
	}, nil
}

// withObjectMeta returns s with the ObjectMeta fields a policy reads
// declared under metadata. A CRD's schema declares metadata as a bare
// object (the API server validates it itself), which would leave
// object.metadata.labels a compile error; ValidatingAdmissionPolicy sees
// these fields through the API server's published OpenAPI, so a policy here
// sees them too.
func withObjectMeta(s *structuralschema.Structural) *structuralschema.Structural {
	str := func(maxLen int64) structuralschema.Structural {
		st := structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}
		if maxLen > 0 {
			st.ValueValidation = &structuralschema.ValueValidation{MaxLength: &maxLen}
		}
		return st
	}
	dateTime := structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}, ValueValidation: &structuralschema.ValueValidation{Format: "date-time"}}
	// Label values are at most 63 characters and an object's annotations
	// at most 256 KiB together (apimachinery's metadata validation): CEL's
	// cost estimate of a rule reading them is then a sane one.
	stringMap := func(maxValue int64) structuralschema.Structural {
		v := str(maxValue)
		return structuralschema.Structural{
			Generic:              structuralschema.Generic{Type: "object"},
			AdditionalProperties: &structuralschema.StructuralOrBool{Structural: &v},
		}
	}
	stringList := structuralschema.Structural{Generic: structuralschema.Generic{Type: "array"}, Items: &structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}}
	boolean := structuralschema.Structural{Generic: structuralschema.Generic{Type: "boolean"}}
	ownerRef := structuralschema.Structural{
		Generic: structuralschema.Generic{Type: "object"},
		Properties: map[string]structuralschema.Structural{
			"apiVersion": str(0), "kind": str(0), "name": str(253), "uid": str(0),
			"controller": boolean, "blockOwnerDeletion": boolean,
		},
	}
	meta := structuralschema.Structural{
		Generic: structuralschema.Generic{Type: "object"},
		Properties: map[string]structuralschema.Structural{
			"name":              str(253),
			"generateName":      str(252),
			"namespace":         str(63),
			"uid":               str(0),
			"resourceVersion":   str(0),
			"generation":        {Generic: structuralschema.Generic{Type: "integer"}, ValueValidation: &structuralschema.ValueValidation{Format: "int64"}},
			"creationTimestamp": dateTime,
			"deletionTimestamp": dateTime,
			"labels":            stringMap(63),
			"annotations":       stringMap(256 * 1024),
			"finalizers":        stringList,
			"ownerReferences":   {Generic: structuralschema.Generic{Type: "array"}, Items: &ownerRef},
		},
	}
	out := *s
	out.Properties = make(map[string]structuralschema.Structural, len(s.Properties)+3)
	for k, p := range s.Properties {
		out.Properties[k] = p
	}
	out.Properties["metadata"] = meta
	out.Properties["apiVersion"] = str(0)
	out.Properties["kind"] = str(0)
	return &out
}
