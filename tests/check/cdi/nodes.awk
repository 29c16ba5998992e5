# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# usage: awk -v want=NAME -f nodes.awk spec.json
#
# What a container runtime reads from a CDI spec to build a container's
# /dev, reduced to device nodes: prints "path type major minor gid" for each
# deviceNodes entry of the device named NAME. Runs under busybox awk in the
# test VM (55-container.t); key order inside objects does not matter.
{ buf = buf $0 "\n" }
END {
	n = 0
	while (length(buf)) {
		if (match(buf, /^[ \t\r\n]+/)) {
			buf = substr(buf, RLENGTH + 1)
		} else if (match(buf, /^"[^"]*"/)) {
			tok[++n] = substr(buf, 2, RLENGTH - 2)
			buf = substr(buf, RLENGTH + 1)
		} else if (match(buf, /^-?[0-9]+/)) {
			tok[++n] = substr(buf, 1, RLENGTH)
			buf = substr(buf, RLENGTH + 1)
		} else {
			tok[++n] = substr(buf, 1, 1)
			buf = substr(buf, 2)
		}
	}
	# Depth 1: the spec, 2: a device, 3: its containerEdits, 4: a node.
	depth = 0
	nodes = ""
	for (i = 1; i <= n; i++) {
		t = tok[i]
		if (t == "{") {
			depth++
			if (depth == 4)
				path = type = major = minor = gid = ""
		} else if (t == "}") {
			if (depth == 4)
				nodes = nodes path " " type " " major " " minor " " (gid == "" ? 0 : gid) "\n"
			if (depth == 2) {
				if (name == want)
					printf "%s", nodes
				nodes = name = ""
			}
			depth--
		} else if (tok[i + 1] == ":") {
			v = tok[i + 2]
			if (depth == 2 && t == "name")
				name = v
			else if (depth == 4 && t == "path")
				path = v
			else if (depth == 4 && t == "type")
				type = v
			else if (depth == 4 && t == "major")
				major = v
			else if (depth == 4 && t == "minor")
				minor = v
			else if (depth == 4 && t == "gid")
				gid = v
			i++
		}
	}
}
