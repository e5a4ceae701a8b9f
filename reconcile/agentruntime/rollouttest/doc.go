// Package rollouttest runs the AgentRuntime controller's progressive
// rollouts on the real local cluster (test/controlplane.StartCluster:
// kube-controller-manager, the scheduler and kwok's simulated Node, so the
// stable and candidate Deployments really get Ready pods and the
// candidate's progress deadline is really judged), with a fake clock for
// the timed pauses. It has tests only.
//
// The fake clock moves the reconciler's time, not its work queue's: a
// pause's RequeueAfter still waits in real time. After stepping the clock a
// test nudges the agent by annotating its candidate Deployment, an event
// the controller's Owns watch maps to the agent.
package rollouttest
