// Package clustertest runs the ArenaRun controller on the real local cluster
// (test/controlplane.StartCluster: kube-controller-manager, the scheduler and
// kwok's simulated Node), with a real redis-server and the test worker
// playing the pods' work. It has tests only.
package clustertest
