package cluster

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// desired is a PostgresCluster's class merged with its overrides: what
// every component builds from.
type desired struct {
	Instances        int32
	PostgresVersion  int32
	ImageName        string                // "" when ImageCatalog names the image
	ImageCatalog     *pgv1.ImageCatalogRef // nil when ImageName does (image_catalog.go)
	StorageSize      resource.Quantity     // what the CNPG Cluster gets: see storage_grow.go
	SpecStorageSize  resource.Quantity     // storage.size as class and cluster say
	StorageMark      string                // auto-grow's record on the CNPG Cluster: see storage_mark.go
	StorageClass     *string
	AutoGrow         *autoGrowPolicy      // nil when auto-grow is off
	Settings         pgv1.ClusterSettings // merged, for resources, parameters, pg_hba
	PoolerEnabled    bool
	PoolerInstances  int32
	PoolMode         pgv1.PoolMode
	ObjectStore      *pgv1.ObjectStoreSpec
	Schedule         string // five fields, as the user wrote it
	SnapshotClass    string
	MonitoringOn     bool
	ExternalSuperSec string
	// Superuser is whether the CNPG Cluster has superuser access
	// (superuser_access.go): decided against the running CNPG Cluster by
	// resolveAgainst, false from resolve alone.
	Superuser bool
}

// Defaults for values neither the class nor the cluster sets.
const (
	defaultInstances       = 1
	defaultPostgresVersion = 16
	defaultStorage         = "1Gi"
	defaultPoolerInstances = 1
)

// specError is an invalid spec: recorded in status with its reason, not
// retried until the object or its class changes.
type specError struct {
	reason  string
	message string
}

func (e *specError) Error() string { return e.message }

// resolve merges class and cluster (cluster wins field by field, by the
// one rule of settings_merge.go) and validates the combination. class is
// nil when it does not exist.
func resolve(c *pgv1.PostgresCluster, class *pgv1.PostgresClusterClass) (*desired, error) {
	if class == nil {
		return nil, &specError{pgv1.ReasonClassNotFound, fmt.Sprintf("PostgresClusterClass %q not found", c.Spec.Class)}
	}
	m := mergeSettings(class.Spec.ClusterSettings, c.Spec.ClusterSettings)
	d := &desired{
		Instances:       deref(m.Instances, defaultInstances),
		PostgresVersion: deref(m.PostgresVersion, defaultPostgresVersion),
		StorageSize:     resource.MustParse(defaultStorage),
		Settings:        m,
		PoolMode:        pgv1.PoolModeSession,
		PoolerInstances: defaultPoolerInstances,
	}
	d.ImageName, d.ImageCatalog = imageChoice(c.Spec.ClusterSettings, m, d.PostgresVersion)
	if err := imageAgrees(c, class, m, d.ImageName); err != nil {
		return d, err
	}
	if m.Storage != nil {
		if m.Storage.Size != nil {
			d.StorageSize = *m.Storage.Size
		}
		d.StorageClass = m.Storage.StorageClass
		d.AutoGrow = autoGrowOf(m.Storage.AutoGrow)
	}
	d.SpecStorageSize = d.StorageSize
	if p := m.ConnectionPooler; p != nil {
		d.PoolerEnabled = p.Enabled != nil && *p.Enabled
		d.PoolerInstances = deref(p.Instances, defaultPoolerInstances)
		if p.PoolMode != "" {
			d.PoolMode = p.PoolMode
		}
	}
	if b := m.Backup; b != nil {
		if b.ObjectStore != nil && b.ObjectStore.DestinationPath != "" {
			d.ObjectStore = b.ObjectStore
		}
		d.Schedule, d.SnapshotClass = b.Schedule, b.VolumeSnapshotClass
	}
	d.MonitoringOn = m.Monitoring != nil && m.Monitoring.Enabled != nil && *m.Monitoring.Enabled
	if pc := c.Spec.PasswordConfig; pc != nil && pc.SuperuserExternalSecretRef != nil {
		d.ExternalSuperSec = pc.SuperuserExternalSecretRef.Name
	}
	if err := validate(d); err != nil {
		return d, err
	}
	return d, validateAutoGrow(d)
}

// validate checks what the CRD schema cannot: rules that span the class
// and the cluster.
func validate(d *desired) error {
	if off := d.Settings.SuperuserAccess; off != nil && !*off && d.ExternalSuperSec != "" {
		// The CRD refuses both in one PostgresCluster; false can also come
		// from the class, which only the merge sees.
		return &specError{pgv1.ReasonSuperuserSecretWithoutAccess, fmt.Sprintf("passwordConfig.superuserExternalSecretRef names superuser Secret %q, but superuserAccess is false (from class or cluster): set superuserAccess: true on the cluster, or remove the external Secret", d.ExternalSuperSec)}
	}
	if d.Schedule != "" && d.ObjectStore == nil && d.SnapshotClass == "" {
		return &specError{pgv1.ReasonBackupTargetMissing, "backup.schedule is set but neither backup.objectStore.destinationPath nor backup.volumeSnapshotClass is"}
	}
	if d.Schedule != "" && len(strings.Fields(d.Schedule)) != 5 {
		return &specError{pgv1.ReasonInvalidSchedule, fmt.Sprintf("backup.schedule %q must have five fields (minute hour day-of-month month day-of-week)", d.Schedule)}
	}
	if d.ObjectStore != nil && !hasCredentials(d.ObjectStore) {
		// The CRD refuses this; objects stored before that rule still
		// reach us.
		return &specError{pgv1.ReasonBackupCredentialsMissing, "backup.objectStore needs one credential form: credentialsSecretName (S3 access keys), s3Credentials (an IAM role), azureCredentials or googleCredentials"}
	}
	if n := d.Settings.Durability.SynchronousStandbys(); n >= d.Instances {
		// The CRD refuses both in one object; the two can come from the
		// class and the cluster, which only the merge sees.
		return &specError{pgv1.ReasonDurabilityInvalid, fmt.Sprintf("durability Synchronous asks %d standby(s) to confirm each commit, and the cluster has %d instance(s), so %d standby(s): raise instances above %d, or lower durability.standbys", n, d.Instances, d.Instances-1, n)}
	}
	for _, k := range slices.Sorted(maps.Keys(d.Settings.PostgreSQLConfig)) {
		// The CRD refuses these too; objects stored before that rule
		// existed still reach us. Postgres matches names case-insensitively.
		if slices.Contains(pgv1.FixedParameters, strings.ToLower(k)) {
			return &specError{pgv1.ReasonParameterNotAllowed, fmt.Sprintf("postgresqlConfig: parameter %q is managed by CloudNativePG and cannot be set", k)}
		}
	}
	return nil
}

func deref(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}
