package cnpgverdict

import (
	"fmt"
	"strings"
	"time"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// A new DatabaseRole races CloudNativePG's own RBAC. The instance manager
// reads the role's password Secret with the Cluster's ServiceAccount,
// whose Role names each Secret a DatabaseRole uses; CNPG's operator adds
// the new Secret to it in its next Cluster reconcile, after the
// DatabaseRole appears. The instance manager, watching the same
// DatabaseRoles, usually tries first, is forbidden to read the Secret,
// and retries only after its 30-second reconciliation interval — so on
// real CNPG most roles were applied 30 s after they were written (seen in
// the real-CNPG tier). Any change to the DatabaseRole object makes the
// instance manager try again at once, so setpoint retries such a role
// itself: it writes RetryAnnotation, at most once per RetryPace, while and
// only while CNPG reports exactly that failure.

// RetryAnnotation records when setpoint last asked CNPG to apply a
// DatabaseRole again.
const RetryAnnotation = "postgres.setpoint.dev/retried-at"

// RetryGrantedAnnotation marks a retry made once the instance Role named
// the role's Secret (GrantedRetryMark): the retry that should succeed.
const RetryGrantedAnnotation = "postgres.setpoint.dev/retried-granted"

// RetryPace is the least time between two retries of one DatabaseRole:
// CNPG's operator needs about a Cluster reconcile to extend its Role.
const RetryPace = time.Second

// SecretNotYetReadable reports whether CNPG's last attempt at role failed
// because the instance manager may not read the role's password Secret
// yet (the Kubernetes API's Forbidden message, which CNPG quotes).
func SecretNotYetReadable(role *cnpgv1.DatabaseRole) bool {
	if role == nil {
		return false
	}
	st := role.Status
	if role.Spec.PasswordSecret == nil || st.Applied == nil || *st.Applied {
		return false
	}
	return strings.Contains(st.Message, fmt.Sprintf("secrets %q is forbidden", role.Spec.PasswordSecret.Name))
}

// RetryDue says whether to ask CNPG to apply role again now; when it is
// not due yet, after is when it will be (0: no retry is wanted).
func RetryDue(role *cnpgv1.DatabaseRole, now time.Time) (due bool, after time.Duration) {
	if !SecretNotYetReadable(role) {
		return false, 0
	}
	last, ok := LastRetry(role)
	if !ok {
		return true, 0
	}
	if wait := last.Add(RetryPace).Sub(now); wait > 0 {
		return false, wait
	}
	return true, 0
}

// RetryDueGranted is RetryDue knowing whether CNPG's instance Role names
// the role's Secret now (granted, MayRead). The moment it does, a retry
// is due whatever the pace: the instance manager can read the Secret at
// last, and would not try again for 30 s. Only once: a retry already
// made with the Secret granted that still reads Forbidden (the API
// server's authorizer a moment behind the Role) waits for the pace,
// which that retry did not move (GrantedRetryMark).
func RetryDueGranted(role *cnpgv1.DatabaseRole, now time.Time, granted bool) (due bool, after time.Duration) {
	due, after = RetryDue(role, now)
	if !due && after > 0 && granted && role.Annotations[RetryGrantedAnnotation] != "true" {
		return true, 0
	}
	return due, after
}

// LastRetry is when setpoint last asked CNPG to apply role again; false
// when it never did, or the annotation is not a value setpoint wrote.
func LastRetry(role *cnpgv1.DatabaseRole) (time.Time, bool) {
	last, err := time.Parse(time.RFC3339Nano, role.Annotations[RetryAnnotation])
	return last, err == nil
}

// RetryMark is the annotation of a retry at now.
func RetryMark(now time.Time) map[string]string {
	return map[string]string{RetryAnnotation: now.UTC().Format(time.RFC3339Nano)}
}

// GrantedRetryMark is the annotations of a retry of role at now, the
// Secret granted or not (RetryDueGranted). A retry without the grant
// leaves RetryGrantedAnnotation out, and server-side apply removes the
// one a previous retry set. A retry on the grant within the pace keeps
// the paced retry's time: it is one more try, not a new start of the
// pace, so if it is refused too (the authorizer behind its Role) the
// paced retry still comes when it would have.
func GrantedRetryMark(role *cnpgv1.DatabaseRole, now time.Time, granted bool) map[string]string {
	m := RetryMark(now)
	if !granted {
		return m
	}
	m[RetryGrantedAnnotation] = "true"
	if last, ok := LastRetry(role); ok && now.Sub(last) < RetryPace {
		m[RetryAnnotation] = role.Annotations[RetryAnnotation]
	}
	return m
}
