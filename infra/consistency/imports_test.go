package consistency_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/reportingplatform/api"

// TestImportsPointInward holds the arrows of ARCHITECTURE.md: what is deployed (shared/, functions/)
// never depends on the local tooling under infra/ nor on what only that tooling uses (gonum's plot
// package draws make scale's charts), and the domain, at the centre, depends on nothing
// of the module and nothing of HTTP, DynamoDB or AWS. Test files may import anything: tests of shared
// packages use infra/testkit.
func TestImportsPointInward(t *testing.T) {
	t.Parallel()
	_, root := loadTemplate(t)
	imports := nonTestImports(t, root, "shared", "functions")
	if len(imports) == 0 {
		t.Fatal("no Go files found under shared/ and functions/")
	}
	for _, file := range slices.Sorted(maps.Keys(imports)) {
		for _, path := range imports[file] {
			if strings.HasPrefix(path, module+"/infra/") {
				t.Errorf("%s imports %s: nothing deployed may depend on local tooling", file, path)
			}
			if strings.HasPrefix(path, "gonum.org/") {
				t.Errorf("%s imports %s: the charts' library is for make scale's charts (infra/bench), not for what is "+
					"deployed", file, path)
			}
			if strings.HasPrefix(file, "shared/domain/") && domainMayNotImport(path) {
				t.Errorf("%s imports %s: the domain knows no HTTP, no DynamoDB, no AWS and no other package of the module", file,
					path)
			}
		}
	}
}

// domainMayNotImport reports whether path is outside what shared/domain may use.
func domainMayNotImport(path string) bool {
	return path == "net/http" || strings.HasPrefix(path, "net/http/") ||
		strings.HasPrefix(path, "github.com/aws/") ||
		strings.HasPrefix(path, module+"/")
}

// nonTestImports returns the import paths of every non-test Go file under the given folders of root,
// by file path relative to root.
func nonTestImports(t *testing.T, root string, dirs ...string) map[string][]string {
	t.Helper()
	imports := map[string][]string{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			for _, spec := range f.Imports {
				p, err := strconv.Unquote(spec.Path.Value)
				if err != nil {
					return err
				}
				imports[rel] = append(imports[rel], p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return imports
}
