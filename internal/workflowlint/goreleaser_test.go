package workflowlint

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"text/template"

	"go.yaml.in/yaml/v3"
)

// goreleaserConfig is the part of .goreleaser.yaml that host/action.yml's
// installer depends on.
type goreleaserConfig struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Builds      []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
		Ldflags []string `yaml:"ldflags"`
		Env     []string `yaml:"env"`
	} `yaml:"builds"`
	Archives []struct {
		IDs          []string `yaml:"ids"`
		Formats      []string `yaml:"formats"`
		NameTemplate string   `yaml:"name_template"`
		Files        []string `yaml:"files"`
	} `yaml:"archives"`
	Checksum struct {
		NameTemplate string `yaml:"name_template"`
		Algorithm    string `yaml:"algorithm"`
	} `yaml:"checksum"`
	Release struct {
		Draft bool `yaml:"draft"`
	} `yaml:"release"`
}

func readGoreleaser(t *testing.T) goreleaserConfig {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c goreleaserConfig
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	return c
}

// render fills a goreleaser name template with the fields our templates use.
func render(t *testing.T, tmpl string, fields map[string]string) string {
	t.Helper()
	tp, err := template.New("name").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		t.Fatalf("template %q: %v", tmpl, err)
	}
	var b strings.Builder
	if err := tp.Execute(&b, fields); err != nil {
		t.Fatalf("template %q: %v", tmpl, err)
	}
	return b.String()
}

// TestGoreleaserBuildsWhatTheHostVariantNeeds: both binaries, for every
// platform the installer maps a runner to, with the version in main.version.
func TestGoreleaserBuildsWhatTheHostVariantNeeds(t *testing.T) {
	c := readGoreleaser(t)
	if c.Version != 2 {
		t.Errorf(".goreleaser.yaml: version %d, want 2", c.Version)
	}
	want := map[string]string{"./cmd/mcp-fuzz": "mcp-fuzz", "./cmd/action": "mcp-fuzz-action"}
	var ids []string
	for _, b := range c.Builds {
		if want[b.Main] != b.Binary {
			t.Errorf("build %s: main %s, binary %s", b.ID, b.Main, b.Binary)
			continue
		}
		delete(want, b.Main)
		ids = append(ids, b.ID)
		for _, os := range []string{"linux", "darwin", "windows"} {
			if !slices.Contains(b.Goos, os) {
				t.Errorf("build %s: no goos %s", b.ID, os)
			}
		}
		for _, arch := range []string{"amd64", "arm64"} {
			if !slices.Contains(b.Goarch, arch) {
				t.Errorf("build %s: no goarch %s", b.ID, arch)
			}
		}
		if !slices.Contains(b.Env, "CGO_ENABLED=0") {
			t.Errorf("build %s: not CGO_ENABLED=0", b.ID)
		}
		if !strings.Contains(strings.Join(b.Ldflags, " "), "-X main.version={{ .Version }}") {
			t.Errorf("build %s: ldflags %v do not set main.version to {{ .Version }}", b.ID, b.Ldflags)
		}
		src, err := os.ReadFile(filepath.Join(repoRoot(t), b.Main, "main.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "var version = ") {
			t.Errorf("%s/main.go has no `var version`, which the ldflags set", b.Main)
		}
	}
	for m := range want {
		t.Errorf(".goreleaser.yaml does not build %s", m)
	}
	if len(c.Archives) != 1 {
		t.Fatalf(".goreleaser.yaml: %d archives, want 1 (one per platform, both binaries)", len(c.Archives))
	}
	a := c.Archives[0]
	slices.Sort(ids)
	slices.Sort(a.IDs)
	if !slices.Equal(a.IDs, ids) {
		t.Errorf("archive ids %v, want the builds %v", a.IDs, ids)
	}
	if !slices.Equal(a.Formats, []string{"tar.gz"}) {
		t.Errorf("archive formats %v: host/action.yml unpacks tar.gz on every OS", a.Formats)
	}
	if !slices.Equal(a.Files, []string{"none*"}) {
		t.Errorf("archive files %v: the installer unpacks into a bin directory, so only the binaries (none*)", a.Files)
	}
	if !c.Release.Draft {
		t.Error("release.draft is false: release.yml publishes the release only after its smoke tests")
	}
}

// targz writes a gzipped tar of files (name -> content, mode 0755).
func targz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	names := keys(files)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o755, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(files[n])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fakeCurl serves `curl ... -o FILE URL` from a directory by the URL's last
// path element, and logs each URL.
const fakeCurl = `#!/bin/bash
out=""; url=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    -H) shift ;;
    http*) url="$1" ;;
  esac
  shift
done
echo "$url" >> "$SERVE/urls.log"
src="$SERVE/${url##*/}"
[ -f "$src" ] || { echo "curl: (22) 404 $url" >&2; exit 22; }
if [ -n "$out" ]; then cp "$src" "$out"; else cat "$src"; fi
`

// TestHostInstallerTakesGoreleaserArchives runs host/install.sh (the host
// variant's install step) for a release against archives and a checksums
// file named and formatted as .goreleaser.yaml makes them (hostinstall_test.go
// uses the names install.sh expects; this ties them to goreleaser's), with
// curl replaced by a local stand-in: it must download both, verify the
// sha256, and install both binaries; with a tampered archive it must refuse.
func TestHostInstallerTakesGoreleaserArchives(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs bash")
	}
	for _, tool := range []string{"bash", "tar", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	script := installScript(t)

	c := readGoreleaser(t)
	const version = "1.2.3"
	archive := render(t, c.Archives[0].NameTemplate, map[string]string{
		"ProjectName": c.ProjectName, "Version": version, "Os": "linux", "Arch": "amd64",
	}) + ".tar.gz"
	sums := render(t, c.Checksum.NameTemplate, map[string]string{"ProjectName": c.ProjectName, "Version": version})
	if c.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum algorithm %q: the installer checks sha256", c.Checksum.Algorithm)
	}

	run := func(t *testing.T, tamper bool) (string, string, error) {
		dir := t.TempDir()
		serve, bin, tmp := filepath.Join(dir, "serve"), filepath.Join(dir, "fakebin"), filepath.Join(dir, "runner-temp")
		for _, d := range []string{serve, bin, tmp} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		// As goreleaser archives them: the binaries at the top, no "./".
		data := targz(t, map[string]string{
			"mcp-fuzz":        "#!/bin/sh\necho mcp-fuzz " + version + "\n",
			"mcp-fuzz-action": "#!/bin/sh\necho action\n",
		})
		// goreleaser's checksums file: "<hex>  <name>" per artifact.
		sum := fmt.Sprintf("%x  %s\n%x  %s\n", sha256.Sum256([]byte("other")), "mcp-fuzz_"+version+"_darwin_arm64.tar.gz", sha256.Sum256(data), archive)
		if tamper {
			data = append(data[:len(data):len(data)], 0)
		}
		for name, b := range map[string][]byte{archive: data, sums: []byte(sum)} {
			if err := os.WriteFile(filepath.Join(serve, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(bin, "curl"), []byte(fakeCurl), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", script)
		cmd.Env = []string{
			"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
			"SERVE=" + serve, "RUNNER_TEMP=" + tmp,
			"GITHUB_OUTPUT=" + filepath.Join(dir, "output"), "GITHUB_PATH=" + filepath.Join(dir, "path"),
			"GITHUB_SERVER_URL=https://github.com",
			// The step's env on a Linux x64 runner, version given.
			"VERSION=" + version, "FROM_SOURCE=false", "ACTION_REF=", "ACTION_PATH=",
			"RUNNER_OS_NAME=Linux", "RUNNER_ARCH_NAME=X64", "GH_TOKEN=",
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		urls, _ := os.ReadFile(filepath.Join(serve, "urls.log"))
		if err == nil {
			for _, b := range []string{"mcp-fuzz", "mcp-fuzz-action"} {
				if st, err := os.Stat(filepath.Join(tmp, "mcp-fuzz", "bin", b)); err != nil || st.Mode()&0o111 == 0 {
					t.Errorf("%s not installed as an executable: %v", b, err)
				}
			}
		}
		return stdout.String() + stderr.String(), string(urls), err
	}

	t.Run("good", func(t *testing.T) {
		out, urls, err := run(t, false)
		if err != nil {
			t.Fatalf("install failed: %v\n%s\nURLs:\n%s", err, out, urls)
		}
		for _, want := range []string{"/v" + version + "/" + archive, "/v" + version + "/" + sums} {
			if !strings.Contains(urls, want) {
				t.Errorf("the installer did not download .../%s; URLs:\n%s", want, urls)
			}
		}
	})
	t.Run("tampered", func(t *testing.T) {
		out, _, err := run(t, true)
		if err == nil {
			t.Fatalf("a tampered archive was installed:\n%s", out)
		}
		if !strings.Contains(out, "checksum") {
			t.Errorf("the failure does not mention the checksum:\n%s", out)
		}
	})
}
