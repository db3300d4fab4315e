package cnpgsim

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// readCNPG reads a file of the pinned CloudNativePG module.
func readCNPG(t *testing.T, path string) string {
	t.Helper()
	dir, err := envtest.CNPGSourceDir()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, path))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// What the stand-in writes of a DatabaseRole is what CloudNativePG v1.30.0
// writes, word for word: each string is checked against CNPG's own source,
// so an upgrade that rewords one fails here rather than in setpoint.
func TestDatabaseRoleMessagesAreCNPGs(t *testing.T) {
	const (
		instance  = "internal/management/controller/databaserole_controller.go"
		operator  = "internal/controller/databaserole_controller.go"
		sqlFile   = "internal/management/controller/roles/postgres.go"
		contract  = "internal/management/controller/roles/contract.go"
		runnable  = "internal/management/controller/roles/runnable.go"
		secrets   = "internal/management/utils/secrets.go"
		generic   = "api/v1/generic_funcs.go"
		finalizer = "pkg/utils/finalizers.go"
		deletion  = "internal/controller/finalizers_delete.go"
		types     = "api/v1/databaserole_types.go"
	)
	for _, c := range []struct{ file, want string }{
		{instance, `fmt.Errorf("database role is already managed by the CNPG cluster")`},
		{instance, `"ensure: absent is not supported for DatabaseRole;"+`},
		{instance, `" delete the resource with databaseRoleReclaimPolicy: delete instead"`},
		{instance, `"role name %q is reserved and cannot be managed via DatabaseRole"`},
		{instance, `fmt.Errorf("while getting the role password: %w", err)`},
		{instance, `fmt.Errorf("while updating membership: %w", err)`},
		{instance, `fmt.Errorf("while updating comment: %w", err)`},
		{instance, `return r.failedReconciliation(ctx, role, err)`}, // a missing Secret, bare
		{sqlFile, `"while creating role %s with role reconciler: %w"`},
		{sqlFile, `"while updating role %s with role reconciler: %w"`},
		{sqlFile, `"while deleting role %s with role reconciler: %w"`},
		{sqlFile, `"while updating memberships for role %s with role reconciler: %w"`},
		{sqlFile, `"while updating comment for role %s with role reconciler: %w"`},
		{sqlFile, `"DROP ROLE IF EXISTS %s"`},
		{sqlFile, `query.WriteString(" PASSWORD NULL")`},
		{contract, `fmt.Errorf("cannot reconcile: password both provided and disabled: %s",`},
		{runnable, `fmt.Errorf("the username in secret %q does not match role %q", secretName, config.Name)`},
		{secrets, `fmt.Errorf("username key doesn't exist inside the secret")`},
		{secrets, `fmt.Errorf("password key doesn't exist inside the secret")`},
		{generic, `"%q is already managed by object %q",`},
		{finalizer, `RoleFinalizerName = MetadataNamespace + "/deleteRole"`},
		{deletion, `const statusMessage = "cluster resource has been deleted, skipping reconciliation"`},
		{types, `ConditionPasswordSecretChange DatabaseRoleConditionType = "PasswordSecretChange"`},
		{operator, `Reason:  "ChangeDetected",`},
		{operator, `Message: secret.ResourceVersion,`},
	} {
		if !strings.Contains(readCNPG(t, c.file), c.want) {
			t.Errorf("CNPG's %s does not contain %s", c.file, c.want)
		}
	}
	for got, want := range map[string]string{
		msgManagedByCluster:    "database role is already managed by the CNPG cluster",
		msgEnsureAbsent:        "ensure: absent is not supported for DatabaseRole; delete the resource with databaseRoleReclaimPolicy: delete instead",
		msgClusterDeleted:      "cluster resource has been deleted, skipping reconciliation",
		msgDuplicate("a", "b"): `"a" is already managed by object "b"`,
		msgReserved("x"):       `role name "x" is reserved and cannot be managed via DatabaseRole`,
		databaseRoleFinalizer:  "cnpg.io/deleteRole",
		cnpgv1.DatabaseRoleConditionPasswordSecretChange: "PasswordSecretChange",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// CNPG 1.30 registers no admission webhook for DatabaseRole: only the
// CRD's CEL rules judge it, so the stand-in needs no validation of its own.
func TestDatabaseRoleHasNoCNPGWebhook(t *testing.T) {
	setup := readCNPG(t, "internal/cmd/manager/controller/controller.go")
	start := strings.Index(setup, "func setupWebhooks(")
	if start < 0 {
		t.Fatal("no setupWebhooks in CNPG's controller.go")
	}
	body := setup[start:]
	if end := strings.Index(body, "\n}\n"); end > 0 {
		body = body[:end]
	}
	if strings.Contains(body, "DatabaseRole") {
		t.Error("CNPG now registers a DatabaseRole webhook: model its validation")
	}
	manifest := readCNPG(t, "config/webhook/manifests.yaml")
	if strings.Contains(strings.ToLower(manifest), "databaserole") {
		t.Error("CNPG's webhook manifest names databaseroles")
	}
}

// The Go type carries exactly the CRD's spec and status fields, under the
// CRD's names.
func TestDatabaseRoleTypeMatchesTheCRD(t *testing.T) {
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema struct {
						Properties map[string]struct {
							Properties map[string]any `json:"properties"`
						} `json:"properties"`
					} `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(readCNPG(t, "config/crd/bases/postgresql.cnpg.io_databaseroles.yaml")), &crd); err != nil {
		t.Fatal(err)
	}
	props := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties
	for part, typ := range map[string]reflect.Type{
		"spec":   reflect.TypeFor[cnpgv1.DatabaseRoleSpec](),
		"status": reflect.TypeFor[cnpgv1.DatabaseRoleStatus](),
	} {
		var want []string
		for name := range props[part].Properties {
			want = append(want, name)
		}
		if got := jsonNames(typ); !slices.Equal(got, sorted(want)) {
			t.Errorf("%s fields = %q, CRD has %q", part, got, sorted(want))
		}
	}
}

func jsonNames(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, name)
	}
	return sorted(names)
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}
