/**
 * The kinds table's lookup by reference as a command for people (lookupCommand): what a message tells the user to run
 * to see what a request with a reference made. Each is the command of the operation spec that calls the kind's
 * `byReference` endpoint, so it finds that kind (the verify lookup knows only collections, payouts and checkout sessions).
 */
import {describe, expect, it} from 'vitest'
import {KINDS, kindOfEndpoint, lookupCommand, pathParamsOf} from '../../src/api/kinds.js'
import {endpoints} from '../../src/api/endpoints.js'
import {operationList} from '../../src/api/operations.js'

describe('the lookup of what a create made, by its reference', () => {
  it('is the command of its kind: a debit under its mandate, a mandate and a subscription by --reference, a checkout session by verify', () => {
    expect(lookupCommand('collections.create', 'order-7')).toBe('pay collections get --reference order-7')
    expect(lookupCommand('payouts.create', 'po-1')).toBe('pay payouts get po-1')
    expect(lookupCommand('checkout.create', 'cs-1')).toBe('pay transactions verify cs-1')
    expect(lookupCommand('mandates.create', 'md2')).toBe('pay mandates get --reference md2')
    expect(lookupCommand('subscriptions.create', 'sub-1')).toBe('pay subscriptions get --reference sub-1')
    expect(lookupCommand('debits.create', 'db1', {mandate_id: 'MD_7H3K9P2W'})).toBe('pay debits status --mandate MD_7H3K9P2W --reference db1')
  })

  it('none when a value it needs is unknown (a debit without its mandate) or the endpoint makes no kind: the caller names `pay find`', () => {
    expect(lookupCommand('debits.create', 'db1')).toBeUndefined()
    expect(lookupCommand('customers.createVirtualAccount', 'x')).toBeUndefined()
    expect(lookupCommand(undefined, 'x')).toBeUndefined()
  })

  it('quotes each value for a shell; a value that begins with - is given as --flag=VALUE, or after --', () => {
    expect(lookupCommand('mandates.create', "a b;$(x)'")).toBe(`pay mandates get --reference 'a b;$(x)'\\'''`)
    expect(lookupCommand('mandates.create', '-md')).toBe('pay mandates get --reference=-md')
    expect(lookupCommand('payouts.create', '-po')).toBe('pay payouts get -- -po')
  })

  it('every kind has one, made from an operation spec that calls its byReference endpoint', () => {
    for (const kind of KINDS) {
      const create = Object.keys(endpoints).find((id) => id.endsWith('.create') && kindOfEndpoint(id) === kind)
      expect(create, kind.name).toBeDefined()
      const command = lookupCommand(create, 'r-1', {mandate_id: 'MD_1'})
      expect(command, kind.name).toBeDefined()
      const spec = operationList.find((o) => command!.startsWith(`pay ${o.command.replace(':', ' ')} `))
      expect([spec?.endpoint, ...(spec?.alternatives?.map((a) => a.endpoint) ?? [])], kind.name).toContain(kind.byReference)
    }
  })

  it("a path template's parameters from a URL whose path ends with it; none from one that does not", () => {
    expect(pathParamsOf('/v1/mandates/{mandate_id}/debits', 'http://127.0.0.1:9/prefix/v1/mandates/MD_1%2F2/debits')).toEqual({mandate_id: 'MD_1/2'})
    expect(pathParamsOf('/v1/mandates/{mandate_id}/debits', 'http://127.0.0.1:9/v1/collections')).toEqual({})
    expect(pathParamsOf('/v1/mandates/{mandate_id}/debits', 'not a url')).toEqual({})
  })
})
