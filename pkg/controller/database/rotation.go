package database

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// rotationReport is what one pass found and did about a rotation request.
type rotationReport struct {
	// selected counts the generated Secrets the request names, done
	// those that answer it.
	selected, done int
	// rotated are the roles whose password this pass rotated.
	rotated []string
	// external are the roles the request names whose Secrets are the
	// user's: setpoint never writes them.
	external []string
}

// rotationSelects reports whether db's rotation request covers role c:
// every role, or those the roles annotation names by kind or name.
func rotationSelects(db *pgv1.PostgresDatabase, c roleCredential) bool {
	list, ok := db.Annotations[pgv1.RotatePasswordsRolesAnnotation]
	if !ok || strings.TrimSpace(list) == "" {
		return true
	}
	for item := range strings.SplitSeq(list, ",") {
		if item = strings.TrimSpace(item); item == c.kind || item == c.role {
			return true
		}
	}
	return false
}

// recordRotation sets the PasswordRotation condition while a request is
// set, and removes it otherwise. The per-role record (lastRotation) is read
// from each Secret, the one place a rotation is written atomically.
func (p *pass) recordRotation() {
	request := credentials.RotationRequest(p.db)
	if request == "" {
		meta.RemoveStatusCondition(&p.status.Conditions, pgv1.ConditionPasswordRotation)
		return
	}
	done := p.rotation.done
	var status bool
	var reason, msg string
	switch unknown := p.unknownRotationRoles(); {
	case len(unknown) > 0:
		reason = pgv1.ReasonUnknownRoles
		msg = fmt.Sprintf("request %q: %s names %s, neither a kind (admin, rw, ro) nor a role of this object; %d of %d password(s) rotated",
			request, pgv1.RotatePasswordsRolesAnnotation, strings.Join(unknown, ", "), done, p.rotation.selected)
	case len(p.rotation.external) > 0:
		reason = pgv1.ReasonExternalSecretNotRotated
		msg = fmt.Sprintf("request %q: setpoint never writes external Secrets, rotate them yourself: %s", request, strings.Join(p.rotation.external, ", "))
	case done < p.rotation.selected:
		reason = pgv1.ReasonRotationPending
		msg = fmt.Sprintf("request %q: %d of %d password(s) rotated", request, done, p.rotation.selected)
	case p.rotation.selected == 0:
		reason = pgv1.ReasonNoRoleSelected
		msg = fmt.Sprintf("request %q names no role with a generated password (%s: %q)", request, pgv1.RotatePasswordsRolesAnnotation, p.db.Annotations[pgv1.RotatePasswordsRolesAnnotation])
	default:
		status, reason = true, pgv1.ReasonRotated
		msg = fmt.Sprintf("request %q: %d password(s) rotated", request, done)
	}
	pipeline.SetCondition(&p.status.Conditions, p.db.Generation, pgv1.ConditionPasswordRotation, status, reason, msg)
}

// unknownRotationRoles are the items of the roles annotation that name
// no kind and no role of the spec: most likely a typo, said in status
// rather than silently ignored.
func (p *pass) unknownRotationRoles() []string {
	known := map[string]bool{"admin": true, "rw": true, "ro": true}
	for _, d := range p.db.Spec.Databases {
		for _, c := range credentialsOf(d, namesOf(p.db, d.Name)) {
			known[c.role], known[c.kind] = true, true
		}
	}
	var out []string
	for item := range strings.SplitSeq(p.db.Annotations[pgv1.RotatePasswordsRolesAnnotation], ",") {
		if item = strings.TrimSpace(item); item != "" && !known[item] {
			out = append(out, item)
		}
	}
	return out
}
