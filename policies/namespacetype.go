package policies

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiservercel "k8s.io/apiserver/pkg/cel"
)

// The variables a policy's CEL reads, named as ValidatingAdmissionPolicy
// names them (k8s.io/apiserver/pkg/admission/plugin/cel). That package is
// not imported: it pulls in the API server's webhook client (client-go's
// rest and clientcmd), which the policies room may not depend on.
const (
	varObject    = "object"
	varOldObject = "oldObject"
	varNamespace = "namespaceObject"
	varParams    = "params"
)

// namespaceDeclType is the type of namespaceObject, field for field
// ValidatingAdmissionPolicy's (plugin/cel BuildNamespaceType): a
// Namespace's metadata (no managed fields or owner references), spec and
// status.
func namespaceDeclType() *apiservercel.DeclType {
	field := func(name string, t *apiservercel.DeclType) *apiservercel.DeclField {
		return apiservercel.NewDeclField(name, t, true, nil, nil)
	}
	fields := func(fs ...*apiservercel.DeclField) map[string]*apiservercel.DeclField {
		out := make(map[string]*apiservercel.DeclField, len(fs))
		for _, f := range fs {
			out[f.Name] = f
		}
		return out
	}
	stringList := apiservercel.NewListType(apiservercel.StringType, -1)
	stringMap := apiservercel.NewMapType(apiservercel.StringType, apiservercel.StringType, -1)
	spec := apiservercel.NewObjectType("kubernetes.NamespaceSpec", fields(field("finalizers", stringList)))
	condition := apiservercel.NewObjectType("kubernetes.NamespaceCondition", fields(
		field("status", apiservercel.StringType),
		field("type", apiservercel.StringType),
		field("lastTransitionTime", apiservercel.TimestampType),
		field("message", apiservercel.StringType),
		field("reason", apiservercel.StringType),
	))
	status := apiservercel.NewObjectType("kubernetes.NamespaceStatus", fields(
		field("conditions", apiservercel.NewListType(condition, -1)),
		field("phase", apiservercel.StringType),
	))
	metadata := apiservercel.NewObjectType("kubernetes.NamespaceMetadata", fields(
		field("name", apiservercel.StringType),
		field("generateName", apiservercel.StringType),
		field("namespace", apiservercel.StringType),
		field("labels", stringMap),
		field("annotations", stringMap),
		field("UID", apiservercel.StringType),
		field("creationTimestamp", apiservercel.TimestampType),
		field("deletionGracePeriodSeconds", apiservercel.IntType),
		field("deletionTimestamp", apiservercel.TimestampType),
		field("generation", apiservercel.IntType),
		field("resourceVersion", apiservercel.StringType),
		field("finalizers", stringList),
	))
	return apiservercel.NewObjectType("kubernetes.Namespace", fields(
		field("metadata", metadata),
		field("spec", spec),
		field("status", status),
	))
}

// namespaceObject is the part of ns a policy sees, as
// ValidatingAdmissionPolicy's CreateNamespaceObject builds it.
func namespaceObject(ns *corev1.Namespace) *corev1.Namespace {
	return &corev1.Namespace{
		Status: ns.Status,
		Spec:   ns.Spec,
		ObjectMeta: metav1.ObjectMeta{
			Name:                       ns.Name,
			GenerateName:               ns.GenerateName,
			Namespace:                  ns.Namespace,
			UID:                        ns.UID,
			ResourceVersion:            ns.ResourceVersion,
			Generation:                 ns.Generation,
			CreationTimestamp:          ns.CreationTimestamp,
			DeletionTimestamp:          ns.DeletionTimestamp,
			DeletionGracePeriodSeconds: ns.DeletionGracePeriodSeconds,
			Labels:                     ns.Labels,
			Annotations:                ns.Annotations,
			Finalizers:                 ns.Finalizers,
		},
	}
}
