// Command sdkgen writes the dbcloud SDKs for Python and Go from the plugin's schema with Pulumi's
// own code generators, the libraries `pulumi package gen-sdk` hands to each language host. The
// language hosts are not buildable here (their modules are not served by the Go module proxy), so
// the generators are called directly; the output is what the hosts would write.
//
// Usage: sdkgen <schema.json> <out dir>
//
// It writes <out>/python and <out>/go, replacing what was there.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"golang.org/x/mod/modfile"
)

// tool names the generator in the header of every generated file.
const tool = "sdkgen (npm run sdk)"

const pulumiSDK = "github.com/pulumi/pulumi/sdk/v3"

// noLoader refuses every package: the dbcloud schema refers to no other package, and a reference
// to one is a mistake worth failing on rather than fetching a plugin for.
type noLoader struct{}

func (noLoader) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %q: sdkgen loads no other package", name)
}

func (l noLoader) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, nil)
}

func (l noLoader) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, fmt.Errorf("the schema refers to package %q: sdkgen loads no other package", name)
}

func (l noLoader) LoadPackageReferenceV2(
	_ context.Context, d *schema.PackageDescriptor,
) (schema.PackageReference, error) {
	return l.LoadPackageReference(d.Name, nil)
}

// bind reads and validates the schema, returning every diagnostic at once.
func bind(path string) (*schema.Package, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noLoader{}, schema.ValidationOptions{})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s: %s", path, diags.Error())
	}
	return pkg, nil
}

// sdkVersion is the version of the Pulumi Go SDK this program was built with (the tools module's
// go.mod pins it), which the Go SDK then requires instead of the generator's built-in default.
func sdkVersion() (string, error) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", errors.New("no build information in the sdkgen binary")
	}
	for _, dep := range info.Deps {
		if dep.Path == pulumiSDK {
			return dep.Version, nil
		}
	}
	return "", fmt.Errorf("%s is not among sdkgen's dependencies", pulumiSDK)
}

// pinPulumiSDK makes the generated go.mod require the Pulumi Go SDK at version.
func pinPulumiSDK(files map[string][]byte, version string) error {
	mod, err := modfile.Parse("go.mod", files["go.mod"], nil)
	if err != nil {
		return err
	}
	if err := mod.AddRequire(pulumiSDK, version); err != nil {
		return err
	}
	files["go.mod"], err = mod.Format()
	return err
}

// pythonPackageName is the folder the Python generator writes the package into.
func pythonPackageName(pkg *schema.Package) string {
	if info, ok := pkg.Language["python"].(pygen.PackageInfo); ok && info.PackageName != "" {
		return info.PackageName
	}
	return pygen.PyPack(pkg.Namespace, pkg.Name)
}

// write replaces dir with files.
func write(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for name, content := range files {
		target := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func run(schemaPath, out string) error {
	// Each generator imports its language section into the package it is given, so each gets a
	// package bound on its own.
	pyPkg, err := bind(schemaPath)
	if err != nil {
		return err
	}
	pyFiles, err := pygen.GeneratePackage(tool, pyPkg, nil, noLoader{})
	if err != nil {
		return fmt.Errorf("python: %w", err)
	}
	// pyproject.toml names README.md beside it, which the generator writes only inside the package.
	pyFiles["README.md"] = pyFiles[filepath.Join(pythonPackageName(pyPkg), "README.md")]
	goPkg, err := bind(schemaPath)
	if err != nil {
		return err
	}
	goFiles, err := gogen.GeneratePackage(tool, goPkg, nil)
	if err != nil {
		return fmt.Errorf("go: %w", err)
	}
	version, err := sdkVersion()
	if err != nil {
		return err
	}
	if err := pinPulumiSDK(goFiles, version); err != nil {
		return fmt.Errorf("go: go.mod: %w", err)
	}
	if err := write(filepath.Join(out, "python"), pyFiles); err != nil {
		return err
	}
	return write(filepath.Join(out, "go"), goFiles)
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sdkgen <schema.json> <out dir>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "sdkgen:", err)
		os.Exit(1)
	}
}
