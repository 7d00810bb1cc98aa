#!/usr/bin/python3
"""Derive, for each Apache Kafka minor release, the API keys and version ranges its broker
advertises in ApiVersions with default configuration, from Kafka's own sources of that release,
and write them as protocol/kafka_releases_data.inc.

Runs offline against local Kafka git directories (bare mirrors work: files are read with
`git show REF:PATH`, nothing is checked out). Usage:

    tools/kafka-releases/derive_api_versions.py --git /path/to/kafka.git [--git /other/kafka.git ...] \
        [--out protocol/kafka_releases_data.inc] [--dump-json FILE] [--compare kafka-python-table.py]

Each release is looked up, in order, by the refs listed in RELEASES below in every --git
directory; the first that resolves is used. The ref and commit used go into the generated file.

How a release's broker table is derived:

* 2.0, 2.1: there are no JSON message schemas yet. The API list is the `ApiKeys` enum in
  clients/src/main/java/org/apache/kafka/common/protocol/ApiKeys.java; each API's versions
  are the entries of `schemaVersions()` in its request class
  (clients/src/main/java/org/apache/kafka/common/requests/<Name>Request.java): version 0 up to
  the number of schemas - 1. A ZooKeeper broker advertises every key of the enum.
* 2.2 - 2.7: same enum; an entry whose request schemas are `<Name>RequestData.SCHEMAS` takes its
  versions from clients/src/main/resources/common/message/<Name>Request.json (`validVersions`),
  the others still from the Java class. 2.7's enum marks the KIP-500 Raft APIs `isEnabled=false`
  (ApiVersionsResponse skips them): those are left out.
* 2.8 onwards: the JSON schemas alone. `listeners` says which processes serve an API. For 2.8 -
  3.9 the table is that of a ZooKeeper-mode broker (listener "zkBroker"), the default deployment
  of those releases; for 4.x (no ZooKeeper) that of a KRaft broker (listener "broker").
  `latestVersionUnstable: true` means the highest version is only advertised with
  `unstable.api.versions.enable=true`, so it is dropped (and the API too if nothing is left).
  Kafka 4.0 removed old versions (KIP-896): its schemas' `validVersions` already start higher,
  except ProduceRequest, which keeps "0-12" on purpose (KAFKA-18659: librdkafka disables
  compression unless the range contains 0); the broker advertises 0-12 and answers v0-2 with
  UNSUPPORTED_VERSION. The table says what is advertised: 0-12.
* Run-time filters on top of the schemas, from ApiVersionsResponse.filterApis of 3.7+ and 4.x:
  GetTelemetrySubscriptions (71) and PushTelemetry (72) are advertised only when a client
  telemetry reporter is configured (not by default), so they are left out. ApiVersions also skips
  APIs whose minRequiredInterBrokerMagic exceeds the record version of the broker's
  inter.broker.protocol.version / metadata.version; with defaults (latest) nothing is skipped.

SOURCE_OVERRIDES below is for a release whose tag was not available when the data was generated:
then the nearest snapshot of its release branch is used and the listed differences, each with
its upstream reference, are applied on top. They are used only when the release tag itself is
missing; with a full Kafka clone the tag wins and no override applies.
"""

import argparse
import json
import re
import subprocess
import sys

MESSAGE_DIR = "clients/src/main/resources/common/message"
API_KEYS_JAVA = "clients/src/main/java/org/apache/kafka/common/protocol/ApiKeys.java"
REQUESTS_DIR = "clients/src/main/java/org/apache/kafka/common/requests"

# (release, refs to try in order, broker listener or None for the pre-2.8 enum-based derivation)
RELEASES = [
    ("2.0", ["2.0.0"], None),
    ("2.1", ["2.1.0"], None),
    ("2.2", ["2.2.0"], None),
    ("2.3", ["2.3.0"], None),
    ("2.4", ["2.4.0"], None),
    ("2.5", ["2.5.0"], None),
    ("2.6", ["2.6.0"], None),
    ("2.7", ["2.7.0"], None),
    ("2.8", ["2.8.0"], "zkBroker"),
    ("3.0", ["3.0.0"], "zkBroker"),
    ("3.1", ["3.1.0"], "zkBroker"),
    ("3.2", ["3.2.0"], "zkBroker"),
    ("3.3", ["3.3.0"], "zkBroker"),
    ("3.4", ["3.4.0"], "zkBroker"),
    ("3.5", ["3.5.0"], "zkBroker"),
    ("3.6", ["3.6.0"], "zkBroker"),
    ("3.7", ["3.7.0"], "zkBroker"),
    ("3.8", ["3.8.0"], "zkBroker"),
    ("3.9", ["3.9.0"], "zkBroker"),
    # 4.0 branch head of 2024-12-25 (after the branch was cut from trunk), the newest 4.0 source
    # available offline when this was generated; see SOURCE_OVERRIDES.
    ("4.0", ["4.0.0"], "broker"),
    # No 4.1 source was available offline (see SOURCE_OVERRIDES and the README).
    ("4.1", ["4.1.0"], "broker"),
]

# Keys skipped at run time by ApiVersionsResponse.filterApis unless configured (see above).
RUNTIME_FILTERED = {71: "client telemetry not configured", 72: "client telemetry not configured"}

# Used only when none of a release's tags resolves. "base" is a ref (or another release's
# derived table, "release:X.Y") to derive from; "set" maps api key -> (min, max) or None (absent).
SOURCE_OVERRIDES = {
    "4.0": {
        "base_ref": "b0fb35c5aae134a0cbbf3d8f8dbb0e7c064c5d77",
        "note": "4.0 branch snapshot of 2024-12-25 plus the changes merged to 4.0 before 4.0.0",
        "set": {
            # KAFKA-18659 (apache/kafka#18727, merged to trunk and 4.0, January 2025):
            # ProduceRequest.json validVersions "3-12" -> "0-12" so that librdkafka keeps
            # compression; v0-2 stay unsupported (UNSUPPORTED_VERSION).
            0: (0, 12),
            # KAFKA-18648 (apache/kafka#18716, January 2025): Metadata v0-3 added back (they
            # had been removed in December 2024; kafka-python and aiokafka need v0).
            3: (0, 13),
            # WriteTxnMarkersRequest.json of 4.0.0: "Version 0 was removed in Apache Kafka 4.0,
            # Version 1 is the new baseline" (validVersions "1"; quoted in apache/kafka#20857).
            27: (1, 1),
            # KAFKA-18352 (apache/kafka#18324, merged 2024-12-26, a day after the snapshot):
            # DeleteGroups v0 added back, it was wrongly listed as deprecated by KIP-896.
            42: (0, 2),
        },
    },
    "4.1": {
        "base_ref": "release:4.0",
        "note": "PROVISIONAL: 4.0's table plus 4.1's changes as recorded by franz-go's "
        "pkg/kversion b41 (with upstream commit ids); not derived from 4.1's own schemas",
        "set": {
            0: (0, 13),  # Produce 13, KIP-516 topic ids (KAFKA-10551)
            1: (4, 18),  # Fetch 18, KIP-1166 (KAFKA-14145)
            11: (0, 9),  # JoinGroup v0/v1 re-added (KAFKA-19444)
            45: (0, 1),  # AlterPartitionReassignments 1, KIP-860 (KAFKA-14121)
            66: (0, 2),  # ListTransactions 2, KIP-1152 (KAFKA-19073)
            74: (0, 1),  # ListConfigResources (renamed ListClientMetricsResources), KIP-1142
            # KIP-932 share groups (preview in 4.1). Version 0 was the 4.0 early-access
            # version; min 1 is an assumption (franz-go records only the max).
            76: (1, 1),
            77: (1, 1),
            78: (1, 1),
            79: (1, 1),
            83: (0, 0),
            84: (0, 0),
            85: (0, 0),
            86: (0, 0),
            87: (0, 0),
            90: (0, 0),
            91: (0, 0),
            92: (0, 0),
        },
    },
}


def git(dirs, *args):
    return subprocess.run(["git", "-C", dirs, *args], check=True, capture_output=True).stdout


def resolve(git_dirs, refs):
    for ref in refs:
        for d in git_dirs:
            r = subprocess.run(["git", "-C", d, "rev-parse", "--verify", "--quiet", ref + "^{commit}"],
                               capture_output=True, text=True)
            if r.returncode == 0:
                return d, ref, r.stdout.strip()
    return None


def show(d, commit, path):
    r = subprocess.run(["git", "-C", d, "show", f"{commit}:{path}"], capture_output=True)
    return r.stdout.decode() if r.returncode == 0 else None


def ls(d, commit, path):
    r = subprocess.run(["git", "-C", d, "ls-tree", "--name-only", f"{commit}", path + "/"],
                       capture_output=True, text=True)
    return [line.rsplit("/", 1)[-1] for line in r.stdout.split()] if r.returncode == 0 else []


def strip_json_comments(text):
    """Kafka's schemas are JSON with // comments. Drop them, leaving string contents alone."""
    out, i, n, in_str = [], 0, len(text), False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            out.append(c)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def parse_range(spec):
    spec = spec.strip()
    if "-" in spec:
        lo, hi = spec.split("-")
        return int(lo), int(hi)
    if spec.endswith("+"):
        raise ValueError(f"open range {spec!r} in validVersions")
    return int(spec), int(spec)


def load_schema(d, commit, filename):
    text = show(d, commit, f"{MESSAGE_DIR}/{filename}")
    if text is None:
        return None
    # raw_decode: a few schemas (e.g. 2.8's) have stray text after the object, which Kafka's
    # generator (Jackson) ignores.
    return json.JSONDecoder().raw_decode(strip_json_comments(text).strip())[0]


def schema_range(schema):
    lo, hi = parse_range(schema["validVersions"])
    if schema.get("latestVersionUnstable", False):
        hi -= 1
    return (lo, hi) if hi >= lo else None


def derive_from_json(d, commit, listener):
    apis = {}
    for name in ls(d, commit, MESSAGE_DIR):
        if not name.endswith("Request.json"):
            continue
        schema = load_schema(d, commit, name)
        if schema.get("type") != "request":
            continue
        if listener not in schema.get("listeners", []):
            continue
        key = schema["apiKey"]
        if key in RUNTIME_FILTERED:
            continue
        rng = schema_range(schema)
        if rng is not None:
            apis[key] = rng
    return apis


def split_args(text):
    """Split a Java argument list at top-level commas."""
    args, depth, cur = [], 0, []
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    if cur:
        args.append("".join(cur).strip())
    return args


def matching_close(text, i):
    """Index of the bracket closing the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] in "([{":
            depth += 1
        elif text[j] in ")]}":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced brackets")


def java_schema_versions(d, commit, cls):
    """Number of versions of `cls`.schemaVersions() in a pre-JSON (or mixed) release."""
    src = show(d, commit, f"{REQUESTS_DIR}/{cls}.java")
    if src is None:
        raise RuntimeError(f"{cls}.java not found at {commit}")
    m = re.search(r"Schema\[\]\s+schemaVersions\(\)\s*\{", src)
    if not m:
        raise RuntimeError(f"no schemaVersions() in {cls}.java")
    body = src[m.end():matching_close(src, m.end() - 1)]
    arr = re.search(r"new\s+Schema\[\]\s*\{(.*?)\}", body, re.S)
    if arr:
        return (0, len([a for a in split_args(arr.group(1)) if a]) - 1)
    data = re.search(r"return\s+(\w+)Data\.SCHEMAS\s*;", body)
    if data:
        return schema_range(load_schema(d, commit, data.group(1) + ".json"))
    raise RuntimeError(f"cannot read schemaVersions() of {cls}.java: {body.strip()}")


def derive_from_enum(d, commit):
    src = show(d, commit, API_KEYS_JAVA)
    start = src.index("public enum ApiKeys")
    end = src.index("private static final", start)
    body = src[start:end]
    apis = {}
    for m in re.finditer(r"\b[A-Z_]+\((\d+),\s*\"(\w+)\"", body):
        # the argument list runs to the matching parenthesis
        i = m.start() + body[m.start():].index("(")
        j = matching_close(body, i)
        args = split_args(body[i + 1:j])
        key = int(args[0])
        booleans = [a for a in args[2:] if a in ("true", "false")]
        enabled = booleans[1] == "true" if len(booleans) >= 2 else True
        if not enabled:
            continue
        req = next(a for a in args[2:] if a.endswith("SCHEMAS") or a.endswith("schemaVersions()"))
        if req.endswith("Data.SCHEMAS"):
            apis[key] = schema_range(load_schema(d, commit, req[: -len("Data.SCHEMAS")] + ".json"))
        else:
            apis[key] = java_schema_versions(d, commit, req.split(".")[0])
    return apis


def derive(git_dirs, release, refs, listener, derived):
    found = resolve(git_dirs, refs)
    override = None
    if found is None:
        override = SOURCE_OVERRIDES.get(release)
        if override is None:
            raise SystemExit(f"release {release}: none of {refs} found in {git_dirs}")
        base = override["base_ref"]
        if base.startswith("release:"):
            apis = dict(derived[base[len("release:"):]][0])
            source = f"derived table of {base[len('release:'):]}"
        else:
            found = resolve(git_dirs, [base])
            if found is None:
                raise SystemExit(f"release {release}: fallback ref {base} not found")
            d, ref, commit = found
            apis = derive_from_json(d, commit, listener)
            source = f"commit {commit}"
        for key, rng in override["set"].items():
            if rng is None:
                apis.pop(key, None)
            else:
                apis[key] = rng
        source += f" + SOURCE_OVERRIDES[{release!r}] ({override['note']})"
        return apis, source
    d, ref, commit = found
    apis = derive_from_json(d, commit, listener) if listener else derive_from_enum(d, commit)
    kind = f"listener {listener!r}" if listener else "ApiKeys enum"
    return apis, f"tag {ref} = commit {commit} ({kind})"


def write_inc(path, tables):
    lines = [
        "// GENERATED by tools/kafka-releases/derive_api_versions.py from Apache Kafka's sources of",
        "// each release; do not edit. Regenerate with (kafka.git: a clone or mirror with the tags):",
        "//   /usr/bin/python3 tools/kafka-releases/derive_api_versions.py --git kafka.git \\",
        "//       --out protocol/kafka_releases_data.inc",
        "// See tools/kafka-releases/README.md for the rules and the cross-check against kafka-python.",
        "//",
        "// For each release, oldest first: SKIFF_KAFKA_RELEASE_BEGIN(identifier), one",
        "// SKIFF_KAFKA_RELEASE_API(api key, min version, max version) per API its broker advertises",
        "// by default, sorted by key, then SKIFF_KAFKA_RELEASE_END(identifier, \"version\").",
        "",
    ]
    for release, (apis, source) in tables.items():
        ident = "v" + release.replace(".", "_")
        lines.append(f"// {release}: {source}")
        lines.append(f"SKIFF_KAFKA_RELEASE_BEGIN({ident})")
        for key in sorted(apis):
            lo, hi = apis[key]
            lines.append(f"SKIFF_KAFKA_RELEASE_API({key}, {lo}, {hi})")
        lines.append(f'SKIFF_KAFKA_RELEASE_END({ident}, "{release}")')
        lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def load_kafka_python(path):
    """BROKER_API_VERSIONS of kafka-python's kafka/protocol/broker_api_versions.py, read as data."""
    text = open(path).read()
    start = text.index("BROKER_API_VERSIONS = {")
    out = {}
    for m in re.finditer(r"\((\d+), (\d+)\): \{([^}]*)\}", text[start:]):
        rel = f"{m.group(1)}.{m.group(2)}"
        out[rel] = {int(k): (int(a), int(b))
                    for k, a, b in re.findall(r"(\d+): \((\d+), (\d+)\)", m.group(3))}
    return out


def compare(tables, other):
    for release, (apis, _) in tables.items():
        theirs = other.get(release)
        if theirs is None:
            print(f"{release}: not in kafka-python's table")
            continue
        diffs = []
        for key in sorted(set(apis) | set(theirs)):
            a, b = apis.get(key), theirs.get(key)
            if a != b:
                diffs.append(f"{key}: ours {a} kafka-python {b}")
        print(f"{release}: {'identical' if not diffs else '; '.join(diffs)}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--git", action="append", required=True, help="Kafka git dir (repeatable)")
    p.add_argument("--out", help="write the C++ .inc here")
    p.add_argument("--dump-json", help="also write the tables as JSON here")
    p.add_argument("--compare", help="kafka-python's broker_api_versions.py to compare against")
    a = p.parse_args()
    tables = {}
    for release, refs, listener in RELEASES:
        tables[release] = derive(a.git, release, refs, listener, tables)
        print(f"{release}: {len(tables[release][0])} APIs from {tables[release][1]}", file=sys.stderr)
    if a.out:
        write_inc(a.out, tables)
    if a.dump_json:
        with open(a.dump_json, "w") as f:
            json.dump({r: {str(k): v for k, v in sorted(t[0].items())} for r, t in tables.items()}, f,
                      indent=1)
    if a.compare:
        compare(tables, load_kafka_python(a.compare))


if __name__ == "__main__":
    main()
