package translate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/deploy/intent"
)

// toolRegistry builds the registry tools.handlers create. Each handler's
// free-form blocks are decoded into the typed ToolRegistryHandler fields,
// strictly: a key the type does not have (at any depth, matched exactly as
// the API server would, never case-insensitively) is an error naming it,
// e.g. tools.handlers[0].httpConfig.retryPolicy.maxAttempt. Handler Secret
// references whose key credentials.data supplies are repointed at the
// credential Secret.
func toolRegistry(in *intent.DeployIntent, namespace, name string) (*v1alpha1.ToolRegistry, error) {
	handlers := make([]v1alpha1.ToolRegistryHandler, 0, len(in.Tools.Handlers))
	for i, h := range in.Tools.Handlers {
		th, err := handler(h, fmt.Sprintf("tools.handlers[%d]", i))
		if err != nil {
			return nil, err
		}
		if in.Credentials != nil {
			repoint(&th, in.Credentials.Data, CredentialsSecretName(in.Pack.Name))
		}
		handlers = append(handlers, th)
	}
	return &v1alpha1.ToolRegistry{
		TypeMeta:   typeMeta(KindToolRegistry),
		ObjectMeta: meta(name, namespace, labels(in.Labels, nil)),
		Spec:       v1alpha1.ToolRegistrySpec{Handlers: handlers},
	}, nil
}

func handler(h intent.Handler, path string) (v1alpha1.ToolRegistryHandler, error) {
	out := v1alpha1.ToolRegistryHandler{
		Name:    h.Name,
		Type:    v1alpha1.ToolRegistryHandlerType(h.Type),
		Timeout: h.Timeout,
	}
	blocks := []struct {
		key string
		raw json.RawMessage
		dst any
	}{
		{"tool", h.Tool, &out.Tool},
		{"httpConfig", h.HTTPConfig, &out.HTTPConfig},
		{"openAPIConfig", h.OpenAPIConfig, &out.OpenAPIConfig},
		{"grpcConfig", h.GRPCConfig, &out.GRPCConfig},
		{"mcpConfig", h.MCPConfig, &out.MCPConfig},
		{"clientConfig", h.ClientConfig, &out.ClientConfig},
		{"auth", h.Auth, &out.Auth},
	}
	for _, b := range blocks {
		if err := decodeBlock(b.raw, b.dst, path+"."+b.key); err != nil {
			return out, err
		}
	}
	return out, nil
}

// decodeBlock decodes raw (absent or null: left nil) into dst, a pointer to
// a pointer to the block's type, refusing keys the type does not have.
func decodeBlock(raw json.RawMessage, dst any, path string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if err := unknownKeys(generic, reflect.TypeOf(dst).Elem(), path); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s: %v", path, jsonTypeError(err))
	}
	return nil
}

// jsonTypeError words a type mismatch by the JSON field it is in.
func jsonTypeError(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
		return fmt.Sprintf("%s: a JSON %s where %s is expected", te.Field, te.Value, te.Type)
	}
	return err.Error()
}

var rawExtensionType = reflect.TypeOf(runtime.RawExtension{})

// unknownKeys walks v (a decoded JSON value) along t and reports the first
// object key (in sorted order, so the message is stable) that t has no JSON
// field for. Free-form parts (RawExtension, interfaces) are not walked.
func unknownKeys(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawExtensionType {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil // a type mismatch: the typed decode words it
		}
		fields := jsonFields(t)
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				return fmt.Errorf("%s.%s: unknown field (the ToolRegistry handler's %s has no field %q)", path, k, t.Name(), k)
			}
			if err := unknownKeys(obj[k], ft, path+"."+k); err != nil {
				return err
			}
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return nil
		}
		for i, e := range arr {
			if err := unknownKeys(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := unknownKeys(obj[k], t.Elem(), path+"."+k); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields maps a struct's JSON field names (inlined structs flattened)
// to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && (name == "" || strings.Contains(opts, "inline")) && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// repoint points every Secret reference of h whose key data supplies at the
// credential Secret; a reference to a key not supplied is left alone (its
// Secret is operator-owned and pre-existing).
func repoint(h *v1alpha1.ToolRegistryHandler, data map[string]string, secret string) {
	fix := func(ref *v1alpha1.ToolRegistrySecretKeyRef) {
		if ref == nil {
			return
		}
		if _, ok := data[ref.Key]; ok {
			ref.Name = secret
		}
	}
	if c := h.HTTPConfig; c != nil {
		fix(c.AuthSecretRef)
		for header, ref := range c.HeadersFromSecret {
			fix(&ref)
			c.HeadersFromSecret[header] = ref
		}
	}
	if c := h.OpenAPIConfig; c != nil {
		fix(c.AuthSecretRef)
	}
	if a := h.Auth; a != nil {
		fix(a.SecretRef)
	}
}
