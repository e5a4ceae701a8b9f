package faults

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
	"github.com/altairalabs/omnia/rules/schema"
)

// With failurePolicy Fail nothing invalid may get in while a webhook
// replica, or the API server, is down. After the runs every stored object
// of the stream's kinds is judged again offline, as `omniactl check` judges
// a manifest (rules.Full: the API server's schema and CEL, then the
// admission-stage Go rules): none may have a finding of severity deny, and
// no object under an invalid name may exist.

// Recheck is the offline verdict on what was stored.
type Recheck struct {
	// Checked is how many stored objects were judged.
	Checked int
	// Invalid lists each stored object with a deny finding, or stored
	// under an invalid name, with why.
	Invalid []string
}

// RecheckStored lists every stream object in the namespaces and judges it.
func RecheckStored(ctx context.Context, c client.Client, namespaces ...string) (Recheck, error) {
	sv, err := schema.Default()
	if err != nil {
		return Recheck{}, err
	}
	var out Recheck
	for _, ns := range namespaces {
		for _, kind := range streamKinds {
			list := newList(kind)
			if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
				return out, err
			}
			objs, err := listItems(list)
			if err != nil {
				return out, err
			}
			for _, o := range objs {
				out.Checked++
				name := fmt.Sprintf("%s %s/%s", kind, ns, o.GetName())
				if strings.HasPrefix(o.GetName(), "invalid-") {
					out.Invalid = append(out.Invalid, name+": stored under an invalid object's name")
				}
				denies, err := denyFindings(ctx, sv, kind, o)
				if err != nil {
					return out, fmt.Errorf("%s: %w", name, err)
				}
				if len(denies) > 0 {
					out.Invalid = append(out.Invalid, name+": "+strings.Join(denies, "; "))
				}
			}
		}
	}
	return out, nil
}

// denyFindings judges a stored object as a manifest (its status and server
// metadata left out) with the admission-stage rules, and returns its deny
// findings.
func denyFindings(ctx context.Context, sv *schema.Validator, kind string, obj client.Object) ([]string, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	delete(m, "status")
	m["apiVersion"] = v1alpha1.GroupVersion.String()
	m["kind"] = kind
	md := map[string]any{"name": obj.GetName(), "namespace": obj.GetNamespace()}
	if l := obj.GetLabels(); len(l) > 0 {
		md["labels"] = toAnyMap(l)
	}
	if a := obj.GetAnnotations(); len(a) > 0 {
		md["annotations"] = toAnyMap(a)
	}
	m["metadata"] = md
	findings, err := rules.Full(ctx, sv, rules.Default, m, nil, nil, rules.Options{Stages: []rules.Stage{rules.StageAdmission}})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range findings {
		if f.Severity == rules.SeverityDeny {
			out = append(out, f.String())
		}
	}
	return out, nil
}

func toAnyMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
