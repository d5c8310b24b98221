'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { maskEnv, HIDDEN } = require('../../lib/cli/web/mask-env')

const env = {
  PATH: '/usr/bin',
  DB_PASSWORD: 'hunter2',
  API_KEY: 'k',
  GITHUB_TOKEN: 't',
  AWS_SECRET_ACCESS_KEY: 's',
  SMTP_PASS: 'p',
  GOOGLE_APPLICATION_CREDENTIALS: '/c.json',
  PRIVATE_PEM: 'pem',
  BASIC_AUTH: 'u:p',
  DATABASE_URL: 'postgres://app:s3cret@db.example:5432/app',
  REDIS: 'redis://:onlypw@cache:6379 and http://plain.example/',
  PORT: 3000
}

test('secrets: values of secret-looking names and the password of a URL are hidden, the rest shown', () => {
  assert.deepEqual(maskEnv(env, 'secrets'), {
    PATH: '/usr/bin',
    DB_PASSWORD: HIDDEN,
    API_KEY: HIDDEN,
    GITHUB_TOKEN: HIDDEN,
    AWS_SECRET_ACCESS_KEY: HIDDEN,
    SMTP_PASS: HIDDEN,
    GOOGLE_APPLICATION_CREDENTIALS: HIDDEN,
    PRIVATE_PEM: HIDDEN,
    BASIC_AUTH: HIDDEN,
    DATABASE_URL: `postgres://app:${HIDDEN}@db.example:5432/app`,
    REDIS: `redis://:${HIDDEN}@cache:6379 and http://plain.example/`,
    PORT: 3000
  })
})

test('names: every value hidden; all: every value; nothing else changes', () => {
  const names = maskEnv(env, 'names')
  assert.deepEqual(Object.keys(names), Object.keys(env))
  assert.ok(Object.values(names).every((v) => v === HIDDEN))
  assert.deepEqual(maskEnv(env, 'all'), env)
  assert.equal(maskEnv(undefined, 'names'), undefined)
})
