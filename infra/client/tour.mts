// A tour of the API as a client team would write it: types generated from openapi.yaml by
// openapi-typescript (schema.d.ts, written beside this file by infra/scripts/client.sh), calls made with
// openapi-fetch, compiled with tsc --strict. Compiling proves that the document lets a client send what
// the API takes (page=last, a link's cursor, the Idempotency-Key header, a PATCH of one field); running proves that the
// answers are the ones the document describes. Any other status or field exits 1.
//
//   node tour.mjs URL     # URL: the API with the demo data (infra/fixtures/demo.json), e.g. make run's
//
// It leaves the demo as it found it: the comment it creates it deletes, the name it changes it puts back.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

// From infra/fixtures/demo.json: the staff user, the report with comments and alan's pending invitation.
const staff = { email: "admin@example.com", password: "demo-admin-2026" };
const report = "8ae83b59-9621-58f7-ae8c-5a712269c424";
const invitation = "dd92a61d-d137-5059-b15b-6cf08719aa9c";
const pageSize = 20; // the lists' default page_size (openapi.yaml)

const comments = "/api/v1/comments/";
const comment = "/api/v1/comments/{id}/";
const invitationPath = "/api/v1/organization-invitations/{id}/";

function check(cond: unknown, what: string): asserts cond {
  if (!cond) {
    throw new Error(what);
  }
}

// Documented is the statuses openapi.yaml lists for an operation: a status the tour expects that the
// document does not give the operation fails the compile.
type Documented<P extends keyof paths, M extends keyof paths[P]> =
  paths[P][M] extends { responses: infer R } ? keyof R & number : never;

// status holds an answer to the status the step expects, and shows the body when it is another.
function status<P extends keyof paths, M extends keyof paths[P]>(
  step: string, _path: P, _method: M, got: { response: Response; error?: unknown }, want: Documented<P, M>,
): void {
  check(got.response.status === want,
    `${step}: answered ${got.response.status} ${JSON.stringify(got.error ?? null)}, want ${want}`);
  // Every documented answer carries X-Request-Id (openapi.yaml's headers).
  check(got.response.headers.get("X-Request-Id"), `${step}: no X-Request-Id`);
  console.log(`ok ${step}: ${want}`);
}

// shown is what a failure says of an invitation: the fields the tour reads, not its token, which accepts it.
function shown(inv: components["schemas"]["OrganizationInvitation"] | undefined): string {
  return JSON.stringify(inv && { id: inv.id, email: inv.email, status: inv.status, first_name: inv.first_name });
}

async function main(base: string): Promise<void> {
  const anonymous = createClient<paths>({ baseUrl: base });

  const login = await anonymous.POST("/api/v1/auth/login", {
    body: { username: staff.email, password: staff.password },
  });
  status("login", "/api/v1/auth/login", "post", login, 201);
  check(login.data, "login: no body");
  check(login.data.email === staff.email && login.data.is_staff, `login: answered user ${login.data.email}`);
  check(login.data.token.length > 0, "login: no token");
  const auth = { Authorization: `Bearer ${login.data.token}` };
  const api = createClient<paths>({ baseUrl: base, headers: auth });

  // page=last is typed number | "last": a document that said integer would not compile here.
  const last = await api.GET(comments, {
    params: { query: { content_type: "report", object_id: report, page: "last" } },
  });
  status("list page=last", comments, "get", last, 200);
  check(last.data, "list: no body");
  const { count, next, previous, results } = last.data;
  const onLast = count - pageSize * Math.floor((count - 1) / pageSize);
  check(count > pageSize, `list: the demo report has ${count} comments, want more than a page`);
  check(results.length === onLast, `list: the last page holds ${results.length} of ${count}, want ${onLast}`);
  check(next === null && previous !== null, `list: the last page links next ${next}, previous ${previous}`);
  check(results.every((c) => c.object_id === report), "list: a comment of another object");

  // previous carries the API's continuation (cursor, opaque): sent back as openapi.yaml types it, it
  // reads the page that ends just before the last page's first comment.
  const back = new URL(previous ?? "").searchParams;
  const cursor = back.get("cursor");
  check(cursor, `list: the last page's previous link ${previous} carries no cursor`);
  const earlier = await api.GET(comments, {
    params: { query: { content_type: "report", object_id: report, page: Number(back.get("page") ?? 1), cursor } },
  });
  status("list previous by its cursor", comments, "get", earlier, 200);
  check(earlier.data, "list previous: no body");
  const older = earlier.data.results;
  check(older.length === pageSize && earlier.data.next !== null,
    `list previous: ${older.length} comments, next ${earlier.data.next}`);
  check(older[older.length - 1].created_at <= results[0].created_at,
    "list previous: its last comment is newer than the last page's first");

  // One key for one create, sent again unchanged with the same body: the retry of a lost answer.
  const key = crypto.randomUUID();
  const text = `Typed client tour ${key}`;
  const body = { content_type: "report", object_id: report, text, tag: "tour" } as const;
  const created = await api.POST(comments, { params: { header: { "Idempotency-Key": key } }, body });
  status("create with Idempotency-Key", comments, "post", created, 201);
  check(created.data, "create: no body");
  check(created.data.text === body.text && created.data.tag === "tour" && created.data.parent === null,
    `create: answered ${JSON.stringify(created.data)}`);
  const id = created.data.id;
  const replay = await api.POST(comments, { params: { header: { "Idempotency-Key": key } }, body });
  status("replay of the create", comments, "post", replay, 201);
  check(replay.data?.id === id, `replay: answered comment ${replay.data?.id}, want the first answer's ${id}`);

  const read = await api.GET(invitationPath, { params: { path: { id: invitation } } });
  status("read invitation", invitationPath, "get", read, 200);
  check(read.data, "read invitation: no body");
  check(read.data.id === invitation && read.data.email === "alan@example.com" && read.data.status === 0,
    `read invitation: answered ${shown(read.data)}`);
  const before = read.data.first_name;
  const patched = await api.PATCH(invitationPath, {
    params: { path: { id: invitation } },
    body: { first_name: "Alan M." },
  });
  status("patch invitation first_name", invitationPath, "patch", patched, 200);
  check(patched.data?.first_name === "Alan M." && patched.data.email === read.data.email,
    `patch invitation: answered ${shown(patched.data)}`);
  const restored = await api.PATCH(invitationPath, {
    params: { path: { id: invitation } },
    body: { first_name: before },
  });
  status("patch invitation back", invitationPath, "patch", restored, 200);
  check(restored.data?.first_name === before,
    `patch back: first_name ${restored.data?.first_name}, want ${before}`);

  const deleted = await api.DELETE(comment, { params: { path: { id } } });
  status("delete the comment", comment, "delete", deleted, 204);
  const gone = await api.GET(comment, { params: { path: { id } } });
  status("read the deleted comment", comment, "get", gone, 404);

  const logout = await api.POST("/api/v1/auth/logout");
  status("logout", "/api/v1/auth/logout", "post", logout, 204);
  const after = await api.GET(comments, {
    params: { query: { content_type: "report", object_id: report } },
  });
  status("list with the revoked token", comments, "get", after, 401);
}

const base = process.argv[2];
if (!base) {
  console.error("usage: node tour.mjs URL");
  process.exit(2);
}
try {
  await main(base);
  console.log("tour passed");
} catch (err) {
  console.error(`tour failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
