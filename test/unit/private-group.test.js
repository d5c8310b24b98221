'use strict'

// A user-private group (lib/shared/private-group.js): Ubuntu's umask 002 makes 0775 folders whose
// group holds the user alone; log files may live there.
const test = require('node:test')
const assert = require('node:assert/strict')
const { privateGroupOf, readPrivateGroup } = require('../../lib/shared/private-group')

const PASSWD = `root:x:0:0:root:/root:/bin/bash
# a comment
ana:x:1000:1000:Ana:/home/ana:/bin/bash
bo:x:1001:1001:Bo:/home/bo:/bin/bash
web:x:1002:1001::/srv/web:/usr/sbin/nologin
`
const GROUP = `root:x:0:
ana:x:1000:
bo:x:1001:
users:x:100:ana,bo
own:x:2000:ana
`
const files = { passwd: PASSWD, group: GROUP }

test('a group with no member and nobody else\'s primary group is the user\'s own', () => {
  assert.equal(privateGroupOf(files, { uid: 1000, gid: 1000 }), 1000)
  assert.equal(privateGroupOf(files, { uid: 0, gid: 0 }), 0)
})

test('a group listing only the user is the user\'s own', () => {
  assert.equal(privateGroupOf(files, { uid: 1000, gid: 2000 }), 2000)
})

test('a group that is another account\'s primary group, or lists another member, is shared', () => {
  assert.equal(privateGroupOf(files, { uid: 1001, gid: 1001 }), null) // web's primary group too
  assert.equal(privateGroupOf(files, { uid: 1000, gid: 100 }), null)
})

test('a gid /etc/group does not list, or a user /etc/passwd does not, is not private', () => {
  assert.equal(privateGroupOf(files, { uid: 1000, gid: 4242 }), null)
  assert.equal(privateGroupOf(files, { uid: 4242, gid: 1000 }), null)
  assert.equal(privateGroupOf({ passwd: '', group: '' }, { uid: 0, gid: 0 }), null)
})

test('unreadable files mean no private group, never an error', async () => {
  const fsp = { readFile: async () => { throw Object.assign(new Error('no'), { code: 'EACCES' }) } }
  assert.equal(await readPrivateGroup({ fsp, uid: 0, gid: 0 }), null)
  const texts = { '/etc/passwd': PASSWD, '/etc/group': GROUP }
  assert.equal(await readPrivateGroup({ fsp: { readFile: async (p) => texts[p] }, uid: 1000, gid: 1000 }), 1000)
})
