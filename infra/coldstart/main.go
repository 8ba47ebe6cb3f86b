// Command coldstart (`make coldstart`) measures what a Lambda cold start costs each function, against
// a bare aws-lambda-go bootstrap built the same way and measured in the same run: it builds
// the bootstraps for this machine, runs each as Lambda does (a process with Lambda's environment, no
// HOME, talking to a Runtime API stand-in) against the demo data in DynamoDB Local, and sends it real
// API Gateway REST events built from template.yaml's routes. Cold runs of the five binaries are
// interleaved and warm invocations taken round-robin, so a machine's noise falls on all of them alike
// and the ratios stay meaningful when the absolute times do not.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/fixture"
	"github.com/reportingplatform/api/infra/gateway"
	"github.com/reportingplatform/api/infra/perfdoc"
	"github.com/reportingplatform/api/shared/dynamo"
)

type options struct {
	cold, warm, memory int
	inittrace, lookups bool
	flags, env         string
	doc                bool
}

func main() {
	var o options
	flag.IntVar(&o.cold, "cold", 20, "cold starts per bootstrap")
	flag.IntVar(&o.warm, "warm", 200, "warm invocations per bootstrap")
	flag.IntVar(&o.memory, "memory", 10000,
		"warm comment-list invocations before reading CommentsFunction's peak RSS (0 skips)")
	flag.BoolVar(&o.inittrace, "inittrace", false,
		"also run each bootstrap once with GODEBUG=inittrace=1 and show where its init goes")
	flag.BoolVar(&o.lookups, "lookups", true,
		"also run each bootstrap once under strace (when installed) and list the files and addresses it reaches")
	flag.StringVar(&o.flags, "flags", "",
		"go build flags for every bootstrap instead of the Makefile's GOFLAGS_LAMBDA, to compare a variant")
	flag.StringVar(&o.env, "env", "",
		"space-separated NAME=value settings added to every bootstrap's environment (e.g. GOGC=200), to compare a variant")
	flag.BoolVar(&o.doc, "doc", true, "also write the report into docs/PERFORMANCE.md's coldstart section")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var report strings.Builder
	err := run(ctx, o, io.MultiWriter(os.Stdout, &report))
	if err == nil && o.doc {
		err = writeDoc(report.String())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "coldstart:", err)
		stop()
		os.Exit(1)
	}
}

// writeDoc puts a run's report into the coldstart section of docs/PERFORMANCE.md (infra/perfdoc).
func writeDoc(report string) error {
	template, err := gateway.FindTemplate()
	if err != nil {
		return err
	}
	path := filepath.Join(filepath.Dir(template), perfdoc.Path)
	if err := perfdoc.Write(path, "coldstart", time.Now(), report); err != nil {
		return err
	}
	fmt.Printf("written to %s\n", path)
	return nil
}

func run(ctx context.Context, o options, out io.Writer) error {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return fmt.Errorf("DYNAMODB_ENDPOINT is not set (make coldstart sets it)")
	}
	templatePath, err := gateway.FindTemplate()
	if err != nil {
		return err
	}
	root := filepath.Dir(templatePath)
	dir, err := os.MkdirTemp("", "coldstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Fprintln(os.Stderr, "building the bootstraps for this machine …")
	flags, err := LambdaFlags(root)
	if err != nil {
		return err
	}
	if o.flags != "" {
		flags = strings.Fields(o.flags)
	}
	bins, err := Build(ctx, root, dir,
		[]string{"AuthFunction", "UsersFunction", "InvitationsFunction", "CommentsFunction", HelloWorld}, flags)
	if err != nil {
		return err
	}
	settings, cleanup, err := demoTable(ctx, root, endpoint)
	if err != nil {
		return err
	}
	for _, kv := range strings.Fields(o.env) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			settings[k] = v
		}
	}
	defer cleanup()
	evs, err := NewEvents(templatePath)
	if err != nil {
		return err
	}
	token, err := Login(ctx, evs, bins[0], settings)
	if err != nil {
		return err
	}
	scenarios, err := evs.Scenarios(token, uuid.NewString()[:8])
	if err != nil {
		return err
	}
	for k := range bins { // measure and printMemory pair them by position
		if scenarios[k].Function != bins[k].Function {
			return fmt.Errorf("scenario %d is %s's, bootstrap %d is %s", k, scenarios[k].Function, k, bins[k].Function)
		}
	}
	fmt.Fprintf(out, "%d cold starts and %d warm invocations per bootstrap (%s/%s build, %s; %s) …\n", o.cold,
		o.warm, runtime.GOOS, runtime.GOARCH,
		strings.Join(flags, " "), time.Now().Format(time.RFC3339))
	rows, err := measure(ctx, bins, settings, scenarios, o)
	if err != nil {
		return err
	}
	PrintTable(out, rows)
	if o.lookups {
		if err := printLookups(ctx, out, bins, settings, scenarios); err != nil {
			return err
		}
	}
	if o.inittrace {
		if err := printInitTrace(ctx, out, bins, settings, scenarios); err != nil {
			return err
		}
	}
	if o.memory > 0 {
		return printMemory(ctx, out, bins[3], settings, scenarios[3], o.memory)
	}
	return nil
}

// demoTable makes a table of the run's own in DynamoDB Local with the demo fixture, as `make seed`
// loads it, and returns the functions' settings for it.
func demoTable(ctx context.Context, root, endpoint string) (Settings, func(), error) {
	client, err := dynamo.NewClient(ctx, endpoint)
	if err != nil {
		return nil, nil, err
	}
	table := "coldstart-" + uuid.NewString()
	if _, err := fixture.EnsureTable(ctx, client, table); err != nil {
		return nil, nil, err
	}
	cleanup := func() {
		_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	}
	file, err := fixture.ParseFile(filepath.Join(root, "infra", "demo-data", "demo.json"))
	if err == nil {
		_, err = fixture.Load(ctx, dynamo.New(client, table), file, time.Now(), 7*24*time.Hour)
	}
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("load the demo fixture: %w", err)
	}
	return Settings{"TABLE_NAME": table, "DYNAMODB_ENDPOINT": endpoint, "TOKEN_TTL": "24h",
		"INVITATION_TTL": "168h"}, cleanup, nil
}

// Login gets the demo administrator's token through the AuthFunction bootstrap itself.
func Login(ctx context.Context, evs *Events, auth Bootstrap, s Settings) (string, error) {
	payload, _, err := evs.Payload("POST", "/api/v1/auth/login", "", LoginBody(DemoAdminEmail, DemoAdminPassword))
	if err != nil {
		return "", err
	}
	p, err := Start(auth, s, nil)
	if err != nil {
		return "", err
	}
	defer p.Stop()
	sc := Scenario{Function: auth.Function, Status: 201, Next: func(int) ([]byte, error) { return payload, nil }}
	res, err := invokeOnce(ctx, p, sc, 0)
	if err != nil {
		return "", fmt.Errorf("login: %w", err)
	}
	resp, _ := ProxyResponse(res)
	var user struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(resp.Body), &user); err != nil || user.Token == "" {
		return "", fmt.Errorf("login: no token in %.200s", resp.Body)
	}
	return user.Token, nil
}

// measure compares cold starts with warm invocations against the same DynamoDB Local. It keeps one
// process of every bootstrap alive and first sends each of them o.warm invocations that are not
// measured: DynamoDB Local is a JVM, and a fresh one answers its first thousands of requests several
// times slower while it compiles them. Taking every cold start first, on a fresh JVM, and every warm
// invocation after, would charge its warm-up to the functions' cold penalty. Then it takes o.cold
// rounds, each a cold start of every bootstrap in a new random order followed by a share of the o.warm
// measured warm invocations, so that both see the database in the same state.
func measure(ctx context.Context, bins []Bootstrap, s Settings, scenarios []Scenario, o options) ([]Row, error) {
	procs := make([]*Process, len(bins))
	for k, b := range bins {
		p, err := Start(b, s, nil)
		if err != nil {
			return nil, err
		}
		defer p.Stop()
		procs[k] = p
	}
	warmUp := 300_000
	for range o.warm {
		for k, p := range procs {
			if _, err := invokeOnce(ctx, p, scenarios[k], warmUp); err != nil {
				return nil, fmt.Errorf("warm-up: %w", err)
			}
			warmUp++
		}
	}
	cpuBefore := make([]time.Duration, len(bins))
	for k, p := range procs {
		var err error
		if cpuBefore[k], err = p.CPUTime(); err != nil {
			return nil, err
		}
	}
	cold := make([][]ColdSample, len(bins))
	warm := make([][]time.Duration, len(bins))
	rounds := max(o.cold, 1)
	for round := range rounds {
		for _, k := range rand.Perm(len(bins)) {
			if round == o.cold { // -cold 0: warm invocations only
				break
			}
			sample, err := ColdStart(ctx, bins[k], s, scenarios[k], round)
			if err != nil {
				return nil, fmt.Errorf("cold start %d: %w", round, err)
			}
			cold[k] = append(cold[k], sample)
		}
		// This round's share of the warm invocations: o.warm spread over the rounds.
		for i := round * o.warm / rounds; i < (round+1)*o.warm/rounds; i++ {
			for k, p := range procs {
				d, err := Warm(ctx, p, scenarios[k], 200_000+i, 1)
				if err != nil {
					return nil, err
				}
				warm[k] = append(warm[k], d...)
			}
		}
		fmt.Fprint(os.Stderr, ".")
	}
	fmt.Fprintln(os.Stderr)
	rows := make([]Row, len(bins))
	for k, b := range bins {
		var inits, calls, firsts, cpus []time.Duration
		var faults []int64
		for _, c := range cold[k] {
			inits, calls = append(inits, c.Init), append(calls, c.First-c.Init)
			firsts, cpus = append(firsts, c.First), append(cpus, c.CPU)
			faults = append(faults, c.Faults)
		}
		rss, err := procs[k].PeakRSS()
		if err != nil {
			return nil, err
		}
		cpuAfter, err := procs[k].CPUTime()
		if err != nil {
			return nil, err
		}
		rows[k] = Row{Function: b.Function, Size: b.Size, Init: Median(inits), FirstCall: Median(calls),
			Cold: Median(firsts), ColdP90: Percentile(firsts, 90),
			Warm: Median(warm[k]), WarmP90: Percentile(warm[k], 90), PeakRSS: rss, ColdCPU: Median(cpus), Faults: Median(faults),
			WarmCPU: (cpuAfter - cpuBefore[k]) / time.Duration(max(o.warm, 1))}
	}
	return rows, nil
}

// printMemory runs n warm invocations in one process and reports its peak RSS along the way.
func printMemory(ctx context.Context, out io.Writer, b Bootstrap, s Settings, sc Scenario, n int) error {
	p, err := Start(b, s, nil)
	if err != nil {
		return err
	}
	defer p.Stop()
	fmt.Fprintf(out, "\npeak RSS (VmHWM) of one %s process over %d warm invocations of %s:\n", b.Function, n,
		"GET comment list")
	for done, next := 0, 1; done < n; {
		batch := min(next, n) - done
		ds, err := Warm(ctx, p, sc, 300_000+done, batch)
		if err != nil {
			return err
		}
		done += batch
		rss, err := p.PeakRSS()
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  after %6d: %s (last batch's warm p50 %s)\n", done, mib(rss), ms(Median(ds)))
		next *= 10
	}
	return nil
}
