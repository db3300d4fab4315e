package credentials

import (
	"fmt"
	"maps"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// RecreatedAtAnnotation marks a generated credential Secret that setpoint
// created again after the one it had generated was deleted. The deleted
// password is nowhere else (Postgres keeps only a verifier of it), so the
// new Secret has a new password, which CloudNativePG sets on the role
// (the Secret carries cnpg.io/reload): applications that read the Secret
// again connect, sessions already open stay. setpoint says so with a
// Warning Event when it happens and in its owner's condition message for
// as long as the mark stays.
const RecreatedAtAnnotation = "postgres.setpoint.dev/recreated-at"

// MarkRecreated returns annotations with the mark for a Secret created
// again at at.
func MarkRecreated(annotations map[string]string, at time.Time) map[string]string {
	out := maps.Clone(annotations)
	if out == nil {
		out = map[string]string{}
	}
	out[RecreatedAtAnnotation] = at.UTC().Format(time.RFC3339)
	return out
}

// RecreatedNote is the condition note for the marked ones of secrets, ""
// when none is marked.
func RecreatedNote(secrets ...*corev1.Secret) string {
	var notes []string
	for _, s := range secrets {
		if s == nil || s.Annotations[RecreatedAtAnnotation] == "" {
			continue
		}
		notes = append(notes, fmt.Sprintf("%s (at %s)", s.Name, s.Annotations[RecreatedAtAnnotation]))
	}
	if len(notes) == 0 {
		return ""
	}
	return "; deleted and created again with a new password, which applications must read again: Secret " + strings.Join(notes, ", ")
}

// RecreatedEvent is the message of the Warning Event SecretRecreated.
func RecreatedEvent(secret, role string) string {
	return fmt.Sprintf("Secret %s was deleted: created it again with a new password, which CloudNativePG sets on role %s; "+
		"applications must read the Secret again (the old password no longer works for new connections)", secret, role)
}
