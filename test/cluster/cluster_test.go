// Package cluster proves that the local cluster (test/controlplane
// WithOperatorCluster: kube-apiserver and etcd, kube-controller-manager,
// kube-scheduler and kwok's simulated Node, with the operator running as in
// `make run`) behaves as a cluster: the
// controllers, not the tests, create ReplicaSets and Pods, schedule them,
// report them Ready, collect garbage, finish namespace deletion and run Jobs.
// No test here writes any status.
package cluster

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/test/controlplane"
)

var (
	cluster   *controlplane.Cluster
	k8sClient client.Client
)

// Generous bounds: the controllers act within seconds, but the machine may
// be shared and loaded.
const (
	eventually = 2 * time.Minute
	poll       = 250 * time.Millisecond
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "omnia-cluster-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The cluster as `make run` starts it: with the operator serving its
	// webhooks, which must not stand in the controllers' way (namespace
	// deletion, garbage collection).
	var operator *controlplane.Operator
	cluster, operator, err = controlplane.WithOperatorCluster(controlplane.Options{}, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	k8sClient, err = client.New(cluster.Config, client.Options{})
	code := 1
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	if code != 0 {
		// The components' logs say why a controller did not act.
		fmt.Fprintf(os.Stderr, "cluster component and operator logs kept in %s\n%s", dir, cluster.Components.LogTails(60))
	}
	operator.Stop()
	controlplane.RemoveWebhooks(cluster.Environment)
	if err := cluster.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping the cluster:", err)
		code = 1
	}
	if code == 0 {
		_ = os.RemoveAll(dir)
	}
	return code
}

// namespace creates a fresh namespace for one test.
func namespace(t *testing.T, g Gomega, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	g.Expect(k8sClient.Create(context.Background(), ns)).To(Succeed())
	return ns.Name
}

func podSpec() corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/app:1"}}}
}

func deployment(ns, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec()},
		},
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// ownedPods lists the pods of ns whose controller has the given UID.
func ownedPods(g Gomega, ns string, ownerUID string) []corev1.Pod {
	pods := &corev1.PodList{}
	g.Expect(k8sClient.List(context.Background(), pods, client.InNamespace(ns))).To(Succeed())
	var out []corev1.Pod
	for _, p := range pods.Items {
		if ref := metav1.GetControllerOf(&p); ref != nil && string(ref.UID) == ownerUID {
			out = append(out, p)
		}
	}
	return out
}

// TestDeploymentGetsReadyPods: a 2-replica Deployment gets a ReplicaSet
// (controller-manager), 2 Pods bound to the simulated Node (scheduler) and
// reported Ready (kwok), and the Deployment reports 2 ready replicas.
func TestDeploymentGetsReadyPods(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := namespace(t, g, "deploy")
	dep := deployment(ns, "web", 2)
	g.Expect(k8sClient.Create(ctx, dep)).To(Succeed())

	rs := &appsv1.ReplicaSet{}
	g.Eventually(func(g Gomega) {
		list := &appsv1.ReplicaSetList{}
		g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
		g.Expect(list.Items).To(HaveLen(1))
		g.Expect(metav1.IsControlledBy(&list.Items[0], dep)).To(BeTrue())
		*rs = list.Items[0]
	}, eventually, poll).Should(Succeed(), "the Deployment controller creates a ReplicaSet")

	g.Eventually(func(g Gomega) {
		pods := ownedPods(g, ns, string(rs.UID))
		g.Expect(pods).To(HaveLen(2))
		for _, p := range pods {
			g.Expect(p.Spec.NodeName).To(Equal(controlplane.NodeName), "pod %s is scheduled", p.Name)
			g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning), "pod %s runs", p.Name)
			g.Expect(podReady(&p)).To(BeTrue(), "pod %s is Ready", p.Name)
		}
	}, eventually, poll).Should(Succeed())

	g.Eventually(func(g Gomega) {
		got := &appsv1.Deployment{}
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(dep), got)).To(Succeed())
		g.Expect(got.Status.ReadyReplicas).To(BeEquivalentTo(2))
		g.Expect(got.Status.AvailableReplicas).To(BeEquivalentTo(2))
	}, eventually, poll).Should(Succeed(), "the Deployment reports its ready replicas")
}

// TestGarbageCollection: deleting a Deployment (background propagation, the
// default) removes its ReplicaSet and Pods through their owner references.
func TestGarbageCollection(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := namespace(t, g, "gc")
	dep := deployment(ns, "doomed", 2)
	g.Expect(k8sClient.Create(ctx, dep)).To(Succeed())
	g.Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(k8sClient.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
		g.Expect(pods.Items).To(HaveLen(2))
	}, eventually, poll).Should(Succeed())

	g.Expect(k8sClient.Delete(ctx, dep)).To(Succeed())
	g.Eventually(func(g Gomega) {
		rss := &appsv1.ReplicaSetList{}
		g.Expect(k8sClient.List(ctx, rss, client.InNamespace(ns))).To(Succeed())
		g.Expect(rss.Items).To(BeEmpty(), "the ReplicaSet is collected")
		pods := &corev1.PodList{}
		g.Expect(k8sClient.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
		g.Expect(pods.Items).To(BeEmpty(), "the Pods are collected")
	}, eventually, poll).Should(Succeed())
}

// TestNamespaceDeletion: a namespace with a running workload and a KEDA
// ScaledObject (a CRD from KEDA's module) is deleted completely.
func TestNamespaceDeletion(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := namespace(t, g, "ns-delete")
	g.Expect(k8sClient.Create(ctx, deployment(ns, "web", 1))).To(Succeed())
	so := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{
			"scaleTargetRef": map[string]any{"name": "web"},
			"triggers": []any{map[string]any{
				"type":     "prometheus",
				"metadata": map[string]any{"serverAddress": "http://127.0.0.1:9090", "query": "up", "threshold": "1"},
			}},
		},
	}}
	so.SetGroupVersionKind(schema.GroupVersionKind{Group: "keda.sh", Version: "v1alpha1", Kind: "ScaledObject"})
	so.SetNamespace(ns)
	so.SetName("web")
	g.Expect(k8sClient.Create(ctx, so)).To(Succeed(), "KEDA's ScaledObject CRD is installed")
	g.Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(k8sClient.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
		g.Expect(pods.Items).To(HaveLen(1))
		g.Expect(podReady(&pods.Items[0])).To(BeTrue())
	}, eventually, poll).Should(Succeed())

	g.Expect(k8sClient.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	g.Eventually(func() bool {
		err := k8sClient.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{})
		return apierrors.IsNotFound(err)
	}, eventually, poll).Should(BeTrue(), "the namespace controller empties and removes the namespace")
}

// TestJobCompletes: a Job's pod is scheduled, runs and succeeds (kwok's
// pod-complete stage), and the Job controller marks the Job Complete.
func TestJobCompletes(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := namespace(t, g, "job")
	spec := podSpec()
	spec.RestartPolicy = corev1.RestartPolicyNever
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "once"},
		Spec: batchv1.JobSpec{
			BackoffLimit: ptr.To[int32](0),
			Template:     corev1.PodTemplateSpec{Spec: spec},
		},
	}
	g.Expect(k8sClient.Create(ctx, job)).To(Succeed())
	g.Eventually(func(g Gomega) {
		got := &batchv1.Job{}
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(job), got)).To(Succeed())
		g.Expect(got.Status.Succeeded).To(BeEquivalentTo(1))
		g.Expect(got.Status.Conditions).To(ContainElement(And(
			HaveField("Type", batchv1.JobComplete),
			HaveField("Status", corev1.ConditionTrue),
		)))
	}, eventually, poll).Should(Succeed())
}
