package schema

import (
	"context"
	"slices"

	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage/names"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// metadataPath is where every metadata finding points.
var metadataPath = field.NewPath("metadata")

// validateMetadata checks obj's metadata as the API server does for a custom
// resource, with apimachinery's own validators: strict decoding of
// metadata into ObjectMeta (an unknown field such as metadata.lables is
// returned in unknown, with the path the API server's strict decoding error
// names), then ValidateObjectMetaDeclaratively with the CRD name rule (name a
// DNS subdomain, namespace a DNS label, labels, annotations and their total
// size, owner references, finalizers) on create, or its update form (name,
// namespace and system fields immutable) on update. old is nil on create.
//
// What the API server fills in from the request before it validates is
// filled in the same way, so a manifest is not blamed for what its client
// supplies: a namespaced object without a namespace gets the request's
// namespace (kubectl's -n or context), a cluster-scoped one has its
// namespace cleared, a generateName is turned into a name, and on update the
// system fields (uid, resourceVersion, creationTimestamp, generation,
// deletion fields) come from the stored object, as an apply or patch does.
func validateMetadata(ctx context.Context, obj, old map[string]any, namespaced bool) (field.ErrorList, []string) {
	meta, unknown, errs := decodeMetadata(obj)
	if errs != nil {
		return errs, unknown
	}
	if !namespaced {
		meta.Namespace = ""
	}
	betaEnabled := utilfeature.DefaultFeatureGate.Enabled(features.DeclarativeValidationBeta)

	if old != nil {
		oldMeta, _, oldErrs := decodeMetadata(old)
		if oldErrs != nil {
			// A stored object whose metadata does not decode cannot be
			// compared with; judge the new metadata as a create.
			old = nil
		} else {
			if !namespaced {
				oldMeta.Namespace = ""
			}
			fillFromStored(meta, oldMeta)
			// rest.BeforeUpdate checks the common fields first (the
			// metadata as on create, with the path-segment name rule:
			// finalizer names, …, and the update rules), then the custom
			// resource strategy its update rules again; the API server
			// repeats the causes they share, a finding is reported once.
			errs = apivalidation.ValidateObjectMetaAccessor(meta, namespaced, pathSegmentName, metadataPath)
			errs = append(errs, apivalidation.ValidateObjectMetaDeclaratively(ctx, operation.Update, meta, oldMeta, namespaced, nil, metadataPath, betaEnabled)...)
			return uniqueErrors(errs), unknown
		}
	}

	if meta.Name == "" && meta.GenerateName != "" {
		meta.Name = generatedName(meta.GenerateName)
	}
	errs = apivalidation.ValidateObjectMetaDeclaratively(ctx, operation.Create, meta, nil, namespaced, apivalidation.NameIsDNSSubdomain, metadataPath, betaEnabled)
	if namespaced && meta.Namespace == "" {
		// The request's namespace fills it; offline there is none to check.
		errs = slices.DeleteFunc(errs, func(e *field.Error) bool {
			return e.Type == field.ErrorTypeRequired && e.Field == "metadata.namespace"
		})
	}
	return errs, unknown
}

// pathSegmentName is the API server's name rule for the common fields
// (rest.validatePathSegment): the name must be usable as a URL path segment.
func pathSegmentName(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}

// uniqueErrors drops repeated field errors (same type, field and message).
func uniqueErrors(errs field.ErrorList) field.ErrorList {
	seen := map[string]bool{}
	return slices.DeleteFunc(errs, func(e *field.Error) bool {
		key := string(e.Type) + "\x00" + e.Field + "\x00" + e.ErrorBody()
		if seen[key] {
			return true
		}
		seen[key] = true
		return false
	})
}

// decodeMetadata decodes obj's metadata strictly, as the API server's
// custom-resource decoder does under strict field validation. An absent
// metadata is an empty one (the name is then reported as required).
func decodeMetadata(obj map[string]any) (*metav1.ObjectMeta, []string, field.ErrorList) {
	meta, found, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		// The API server refuses a body whose metadata does not decode into
		// ObjectMeta (labels: "x", a numeric name, …) before validating.
		return nil, nil, field.ErrorList{field.Invalid(metadataPath, obj["metadata"], "does not decode as object metadata: "+err.Error())}
	}
	if !found || meta == nil {
		meta = &metav1.ObjectMeta{}
	}
	return meta, unknown, nil
}

// fillFromStored copies into meta what the API server takes from the stored
// object on update (rest.BeforeUpdate), and what an apply or patch carries
// over from it (the resource version, the namespace of the request).
func fillFromStored(meta, stored *metav1.ObjectMeta) {
	meta.Generation = stored.Generation
	if meta.UID == "" {
		meta.UID = stored.UID
	}
	if meta.ResourceVersion == "" {
		meta.ResourceVersion = stored.ResourceVersion
	}
	if meta.Namespace == "" {
		meta.Namespace = stored.Namespace
	}
	if !stored.CreationTimestamp.IsZero() {
		meta.CreationTimestamp = stored.CreationTimestamp
	}
	if !stored.DeletionTimestamp.IsZero() {
		meta.DeletionTimestamp = stored.DeletionTimestamp
	}
	if stored.DeletionGracePeriodSeconds != nil && meta.DeletionGracePeriodSeconds == nil {
		meta.DeletionGracePeriodSeconds = stored.DeletionGracePeriodSeconds
	}
	if meta.ResourceVersion == "" {
		// Neither side has one (an update judged offline between two
		// manifests): the API server would have the stored one.
		meta.ResourceVersion = "1"
	}
}

// generatedName is the name the API server generates from generateName
// (names.SimpleNameGenerator: the prefix, cut to leave room, plus five
// random lower-case alphanumerics). The suffix here is fixed so findings are
// the same on every run; any suffix the generator draws is equally valid.
func generatedName(prefix string) string {
	if len(prefix) > names.MaxGeneratedNameLength {
		prefix = prefix[:names.MaxGeneratedNameLength]
	}
	return prefix + "x7k2p"
}
