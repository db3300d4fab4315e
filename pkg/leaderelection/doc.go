// Package leaderelection runs the operator's controllers only while this
// replica holds a coordination.k8s.io Lease, with a two-phase shutdown:
// first stop the controllers and let their workers drain, then release the
// Lease so a standby takes over at once instead of after LeaseDuration.
package leaderelection
