package database

import (
	"cmp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/roleprivilege"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// roleReclaim is the DatabaseRole reclaim policy of a deletionPolicy: what
// CNPG does with the role in Postgres when the object goes.
func roleReclaim(policy pgv1.DeletionPolicy) string {
	if policy == pgv1.DeletionPolicyDelete {
		return cnpgv1.DatabaseRoleReclaimDelete
	}
	return cnpgv1.DatabaseRoleReclaimRetain
}

// roleWant is the part of a DatabaseRole setpoint owns.
type roleWant struct {
	object  string
	cluster string
	role    string
	secret  string
	reclaim string
	// legacyReclaim is a reclaim policy also taken as current on a live
	// object: delete, which releases before this one wrote for a database
	// with deletionPolicy Delete. Rewriting it to retain would make CNPG
	// apply every such role again after an upgrade, and every database
	// read Provisioning meanwhile; the next apply for another reason (a
	// rotation, a repair) writes retain.
	legacyReclaim string
	// cert: the database logs in by certificate: CNPG issues the role a
	// client certificate and the role joins naming.CertAuthGroup,
	// which the cluster's pg_hba lets in by certificate only.
	cert bool
	// nologin: an extra role declared without login, a group.
	nologin bool
	// limit is the connection limit an extra role declares; nil is
	// none (-1), as for every other role.
	limit *int64
	// extra: an extra role of spec.roles, whose login, memberships and
	// limit its entry declares.
	extra bool
	// own are the roles of the database setpoint may make this one a
	// member of: a membership in one of them that w lacks is the spec's
	// change (an inRoles entry or an extra role removed), not an edit.
	own []string
	// memberOf are the roles of the database this one is a member of,
	// sorted: an extra role's inRoles, the owner's adminMemberships.
	memberOf []string
}

// roleApply is the server-side apply of w: only our fields, our labels
// and our controller reference. login is on (every role of a database is
// an application's login); every attribute that bears privilege is set
// explicitly to what a database's role has (roleprivilege.Unprivileged), so that
// setpoint owns it and an edit by another field manager is taken back.
// Without a Secret CNPG leaves the password as it is.
func roleApply(db *pgv1.PostgresDatabase, w roleWant) *cnpgac.DatabaseRoleApplyConfiguration {
	spec := roleprivilege.Unprivileged(cnpgac.DatabaseRoleSpec()).
		WithCluster(cnpgac.LocalObjectReference().WithName(w.cluster)).
		WithName(w.role).WithLogin(!w.nologin).WithConnectionLimit(w.connectionLimit()).
		WithComment(ownership.PostgresMarker(db.Namespace, db.Name)).
		WithDatabaseRoleReclaimPolicy(w.reclaim)
	if w.secret != "" {
		spec.WithPasswordSecret(cnpgac.LocalObjectReference().WithName(w.secret))
	}
	if in := w.inRoles(); len(in) > 0 {
		spec.WithInRoles(in...)
	}
	if w.cert {
		spec.WithClientCertificate(cnpgac.ClientCertificateConfiguration().WithEnabled(true))
	}
	ac := cnpgac.DatabaseRole(w.object, clusterNS(db)).WithLabels(clusterSideLabels(db)).WithSpec(spec)
	if !crossNamespace(db) {
		ac.WithOwnerReferences(ownership.OwnerRefApply(db, gvk))
	}
	return ac
}

// roleObject is w as a new object, for its first write: a create, which
// the API server refuses when the name is taken — whatever our cache says.
// Later writes are server-side applies of roleApply.
func roleObject(db *pgv1.PostgresDatabase, w roleWant) *cnpgv1.DatabaseRole {
	r := &cnpgv1.DatabaseRole{
		ObjectMeta: metav1.ObjectMeta{Name: w.object, Namespace: clusterNS(db),
			Labels: clusterSideLabels(db), OwnerReferences: clusterSideRefs(db)},
		Spec: cnpgv1.DatabaseRoleSpec{
			Cluster: cnpgv1.LocalObjectReference{Name: w.cluster}, Name: w.role, Login: !w.nologin,
			Comment:                   ownership.PostgresMarker(db.Namespace, db.Name),
			DatabaseRoleReclaimPolicy: w.reclaim,
			Inherit:                   ptr.To(true), ConnectionLimit: ptr.To(w.connectionLimit()),
			InRoles: w.inRoles(),
		},
	}
	if w.secret != "" {
		r.Spec.PasswordSecret = &cnpgv1.LocalObjectReference{Name: w.secret}
	}
	if w.cert {
		r.Spec.ClientCertificate = &cnpgv1.ClientCertificateConfiguration{Enabled: ptr.To(true)}
	}
	return r
}

// roleCurrent compares the fields we own, with CNPG's defaults: fields
// the API server or CNPG fill in must not cause an apply.
func roleCurrent(cur *cnpgv1.DatabaseRole, db *pgv1.PostgresDatabase, w roleWant) bool {
	s := cur.Spec
	return ownsClusterSide(cur, db) && cur.Labels[ownership.DatabaseLabel] == db.Name &&
		s.Cluster.Name == w.cluster && s.Name == w.role && s.Login == !w.nologin &&
		s.Comment == ownership.PostgresMarker(db.Namespace, db.Name) &&
		(s.PasswordSecret == nil && w.secret == "" || s.PasswordSecret != nil && s.PasswordSecret.Name == w.secret) &&
		reclaimCurrent(cmp.Or(s.DatabaseRoleReclaimPolicy, cnpgv1.DatabaseRoleReclaimRetain), w) &&
		(!w.cert || certRequested(cur)) && len(roleprivilege.DriftLimited(cur, w.inRoles(), w.connectionLimit())) == 0
}

// reclaimCurrent: a live object's reclaim policy got is as w wants it.
func reclaimCurrent(got string, w roleWant) bool {
	return got == w.reclaim || w.legacyReclaim != "" && got == w.legacyReclaim
}

// inRoles is every membership w's role has: the certificate group when it
// logs in by certificate, then memberOf.
func (w roleWant) inRoles() []string {
	var out []string
	if w.cert {
		out = append(out, naming.CertAuthGroup)
	}
	return append(out, w.memberOf...)
}

// connectionLimit is the limit w's role has: -1, none, unless declared.
func (w roleWant) connectionLimit() int64 { return ptr.Deref(w.limit, -1) }

// certRequested: the DatabaseRole asks CNPG for a client certificate
// (enabled defaults to true when the block is there, as in CNPG).
func certRequested(cur *cnpgv1.DatabaseRole) bool {
	c := cur.Spec.ClientCertificate
	return c != nil && ptr.Deref(c.Enabled, true)
}

// roleApplied: CNPG's instance manager applied the object's current
// generation.
func roleApplied(cur *cnpgv1.DatabaseRole) bool {
	st := cur.Status
	return st.ObservedGeneration == cur.Generation && ptr.Deref(st.Applied, false)
}

// wantOf is what cur, one of ours, asks for with reclaim policy reclaim:
// a removal changes nothing else.
func wantOf(cur *cnpgv1.DatabaseRole, reclaim string) roleWant {
	w := roleWant{object: cur.Name, cluster: cur.Spec.Cluster.Name, role: cur.Spec.Name, reclaim: reclaim, cert: certRequested(cur),
		nologin: !cur.Spec.Login, limit: cur.Spec.ConnectionLimit}
	for _, r := range cur.Spec.InRoles {
		if r != naming.CertAuthGroup {
			w.memberOf = append(w.memberOf, r)
		}
	}
	if cur.Spec.PasswordSecret != nil {
		w.secret = cur.Spec.PasswordSecret.Name
	}
	return w
}
