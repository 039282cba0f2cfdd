/**
 * When following pages stops (src/operation/paging.ts), for `--all` of a list command and `pay api --paginate`: at
 * the end of the list, at `total`, at a page that repeats the one before (a service that does not page by `page=`,
 * exit 1), and at the bound of pages (exit 1). The commands run in-process against a scripted server on loopback.
 */
import {describe, expect, it} from 'vitest'
import {PageFollower} from '../../src/operation/paging.js'
import {pay} from '../helpers/in-process.js'
import {scriptedEnv, useScriptedServer} from '../helpers/scripted-server.js'

const server = useScriptedServer()
const PATH = '/v1/customers/MC_1/collections'
const row = (n: number) => ({id: `CL_${n}`, object: 'collection', status: 'succeeded', currency: 'KES', amount: `${n}.00`, merchant_reference: `r-${n}`, customer_id: 'MC_1'})
const page = (rows: number[], more: boolean, total?: number) => ({status: 200, body: {object: 'list', customer_id: 'MC_1', has_more: more, ...(total === undefined ? {} : {total}), data: rows.map(row)}})

describe('PageFollower', () => {
  it('goes on while has_more, and ends at the last page or an empty one', () => {
    const f = new PageFollower()
    expect(f.step(1, [1, 2], {has_more: true})).toEqual({show: true, next: true})
    expect(f.step(2, [3], {has_more: false})).toEqual({show: true, next: false})
    expect(new PageFollower().step(1, [], {has_more: true})).toEqual({show: true, next: false})
  })

  it('ends when the rows seen reach total, whatever has_more says', () => {
    const f = new PageFollower()
    expect(f.step(1, [1, 2], {has_more: true, total: 3})).toEqual({show: true, next: true})
    expect(f.step(2, [3], {has_more: true, total: 3})).toEqual({show: true, next: false})
  })

  it('stops at a page that repeats the one before: not shown, a problem saying so', () => {
    const f = new PageFollower()
    f.step(1, [{id: 'a'}, {id: 'b'}], {has_more: true, total: 3})
    const step = f.step(2, [{id: 'a'}, {id: 'b'}], {has_more: true, total: 3})
    expect(step).toMatchObject({show: false, next: false})
    expect(step.problem).toBe('stopped paging: page 2 repeats the page before, so the service does not page by `page=`; 2 row(s) shown of 3')
  })

  it('stops after its bound of pages, saying so', () => {
    const f = new PageFollower(3)
    for (const n of [1, 2]) expect(f.step(n, [n], {has_more: true}).next).toBe(true)
    const last = f.step(3, [3], {has_more: true})
    expect(last).toMatchObject({show: true, next: false})
    expect(last.problem).toMatch(/^stopped paging after 3 pages .*; 3 row\(s\) shown$/)
  })

  it('follows 1000 pages at most by default', () => {
    const f = new PageFollower()
    for (let n = 1; n < 1000; n++) expect(f.step(n, [n], {has_more: true}).next).toBe(true)
    expect(f.step(1000, [1000], {has_more: true}).problem).toMatch(/^stopped paging after 1000 pages/)
  })
})

describe('a service that does not page by page=', () => {
  it('customers collections --all: two requests, each row once, an error naming why, exit 1', async () => {
    server.script(`GET ${PATH}`, page([1, 2], true, 3), page([1, 2], true, 3))
    const r = await pay(['customers', 'collections', 'MC_1', '--all', '--per-page', '2'], {env: scriptedEnv(server)})
    expect(r.code, r.stderr).toBe(1)
    expect(server.apiRequests().map((q) => q.query.page)).toEqual(['1', '2'])
    expect(r.stdout.match(/CL_1/g)).toHaveLength(1)
    expect(r.stderr).toContain('error: stopped paging: page 2 repeats the page before')
  })

  it('pay api --paginate: the same, each item once', async () => {
    server.script(`GET ${PATH}`, page([1, 2], true, 3), page([1, 2], true, 3))
    const r = await pay(['api', 'GET', `${PATH}?per_page=2`, '--paginate'], {env: scriptedEnv(server)})
    expect(r.code, r.stderr).toBe(1)
    expect(server.apiRequests()).toHaveLength(2)
    expect(r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as {id: string}).id)).toEqual(['CL_1', 'CL_2'])
    expect(r.stderr).toContain('2 row(s) shown of 3')
  })

  it('--all --json ends at total although has_more stays true: exit 0', async () => {
    server.script(`GET ${PATH}`, page([1, 2], true, 3), page([3], true, 3))
    const r = await pay(['customers', 'collections', 'MC_1', '--all', '--per-page', '2', '--json'], {env: scriptedEnv(server)})
    expect(r.code, r.stderr).toBe(0)
    expect(server.apiRequests()).toHaveLength(2)
    expect(r.stdout.trim().split('\n').flatMap((l) => (JSON.parse(l) as {data: {id: string}[]}).data.map((d) => d.id))).toEqual(['CL_1', 'CL_2', 'CL_3'])
  })
})
