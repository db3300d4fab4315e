package nodeimages

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// Options say where to build and what to call the images.
type Options struct {
	Root      string // the repository's root
	BinDir    string // archives go to BinDir/images
	CacheDir  string // downloads and apt state; BinDir/cache/nodeimages when empty
	Registry  string // the references' repository prefix, e.g. localhost/setpoint
	Mirror    string // Debian mirror for trixie's pgbouncer and barman-cli-cloud
	AptUpdate bool   // refresh trixie's package lists
	Log       io.Writer
}

// ManifestName is the file, in BinDir/images, that lists the images.
const ManifestName = "images.json"

// recipes are the node's images, in the order images.json lists them.
func (o Options) recipes() []recipe {
	return []recipe{
		goBinary{image: "pause", moduleDir: "hack/tools", pkg: "./nodeimages/pause", tag: pauseTag,
			path: "/pause", user: "pause", uid: 65535},
		goBinary{image: "cnpg", moduleDir: "test/controlplane/cnpg", pkg: "github.com/cloudnative-pg/cloudnative-pg/cmd/manager",
			pinned: "github.com/cloudnative-pg/cloudnative-pg", path: "/manager", user: "nonroot", uid: 65532,
			// The operator finds the architectures it can run instances
			// on as operator/manager_<arch> under its working directory
			// (pkg/utils/discovery.go); without one every Cluster fails
			// with "invalid architecture: amd64".
			links: []string{"/operator/manager_" + runtime.GOARCH}},
		postgres{},
		pgbouncer{mirror: o.Mirror, update: o.AptUpdate},
		// After pgbouncer, whose recipe refreshes trixie's lists when asked.
		postgres17{mirror: o.Mirror},
		goBinary{image: "coredns", moduleDir: "test/controlplane/coredns", pkg: "github.com/coredns/coredns",
			pinned: "github.com/coredns/coredns", path: "/coredns", user: "nonroot", uid: 65532},
		// The barman-cloud plugin: its manager runs as `operator` in the
		// plugin's Deployment, and as `instance` (or `restore`) in the
		// sidecar image below, which adds barman's cloud tools.
		goBinary{image: "barman-cloud", moduleDir: barmanCloudModuleDir, pkg: barmanCloudPkg,
			pinned: barmanCloudModule, path: "/manager", user: "nonroot", uid: 65532},
		barmanSidecar{mirror: o.Mirror, moduleDir: barmanCloudModuleDir, pkg: barmanCloudPkg, pinned: barmanCloudModule},
		// The S3-compatible store the sidecars archive into.
		goBinary{image: "s3store", moduleDir: "hack/tools", pkg: "./nodeimages/s3store",
			pinned: "github.com/johannesboyne/gofakes3", path: "/s3store", user: "nonroot", uid: 65532},
	}
}

// The barman-cloud plugin's pinned module and its one program.
const (
	barmanCloudModuleDir = "test/controlplane/barmancloud"
	barmanCloudModule    = "github.com/cloudnative-pg/plugin-barman-cloud"
	barmanCloudPkg       = barmanCloudModule + "/cmd/manager"
)

// pauseTag is the tag test/node's containerd configuration names as its
// sandbox image (localhost/setpoint/pause:1).
const pauseTag = "1"

// Build builds every image whose archive is missing and writes
// images.json; it returns the images.
func Build(ctx context.Context, o Options) ([]Image, error) {
	if o.CacheDir == "" {
		o.CacheDir = filepath.Join(o.BinDir, "cache", "nodeimages")
	}
	out := filepath.Join(o.BinDir, "images")
	for _, d := range []string{out, o.CacheDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	e := &env{root: o.Root, cacheDir: o.CacheDir}
	var imgs []Image
	for _, rc := range o.recipes() {
		img, err := o.one(ctx, e, rc, out)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", rc.name(), err)
		}
		imgs = append(imgs, img)
	}
	data, err := json.MarshalIndent(map[string][]Image{"images": imgs}, "", "  ")
	if err != nil {
		return nil, err
	}
	return imgs, writeIfChanged(filepath.Join(out, ManifestName), append(data, '\n'))
}

// one returns rc's image, building it only when no archive has its key.
func (o Options) one(ctx context.Context, e *env, rc recipe, out string) (Image, error) {
	p, err := rc.prepare(ctx, e)
	if err != nil {
		return Image{}, err
	}
	ref := o.Registry + "/" + repository(rc) + ":" + p.tag
	p.in["builder"] = builderVersion()
	p.in["go"] = runtime.Version() // the toolchain builds the binaries and the gzip
	p.in["reference"] = ref
	key := p.in.key()
	archive := filepath.Join(out, archiveName(rc.name(), key))
	if img, ok := cached(archive); ok {
		o.logf("%-10s %s cached", rc.name(), ref)
		return img, nil
	}
	start := time.Now()
	img, err := o.build(ctx, rc.name(), p, ref, archive)
	if err != nil {
		return Image{}, err
	}
	img.Key = key
	if err := writeRecord(img, p.in); err != nil {
		return Image{}, err
	}
	o.logf("%-10s %s built in %s", rc.name(), ref, time.Since(start).Round(100*time.Millisecond))
	return img, prune(out, rc.name(), key)
}

func (o Options) build(ctx context.Context, name string, p *plan, ref, archive string) (Image, error) {
	work, err := os.MkdirTemp(o.CacheDir, "work-"+name+"-")
	if err != nil {
		return Image{}, err
	}
	defer os.RemoveAll(work)
	tree, cfg, err := p.build(ctx, work)
	if err != nil {
		return Image{}, err
	}
	labels := map[string]string{
		"org.opencontainers.image.title":   name,
		"org.opencontainers.image.version": p.tag,
		"dev.setpoint.node-image.key":      p.in.key(),
	}
	img, err := image(tree, cfg, labels)
	if err != nil {
		return Image{}, err
	}
	digest, err := writeArchive(archive, img, ref, p.tag)
	if err != nil {
		return Image{}, err
	}
	return Image{Name: name, Reference: ref, Archive: archive, Digest: digest.String()}, nil
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}
