/** A tool call's printed output as its structured result, and the Output a tool call runs with. */
import {describe, expect, it} from 'vitest'
import {liveMoneyGate} from '../../src/operation/confirm.js'
import {memoryOutput, structuredOf} from '../../src/mcp/results.js'
import type {ApiContext} from '../../src/runtime.js'

describe('the structured result', () => {
  it('is the body as sent, also when it spans lines; pages of --all are joined', () => {
    expect(structuredOf('{\n  "id": "CL_1",\n  "status": "processing"\n}\n')).toEqual({id: 'CL_1', status: 'processing'})
    expect(structuredOf('{"data":[{"id":1}],"has_more":true}\n{"data":[{"id":2}],"has_more":false}\n')).toEqual({data: [{id: 1}, {id: 2}], pages: 2})
    expect(structuredOf('[1,2]')).toEqual({value: [1, 2]})
  })
})

describe('the Output of a tool call', () => {
  it('asks no one: the server\'s stdio is the agent\'s, so not /dev/tty either', async () => {
    const {out} = memoryOutput()
    expect(out.term).toMatchObject({interactive: false, noInput: true})
    // the live-money rule without consent: refused at once as where no one can be asked, never a question on a terminal
    const ctx = {out, settings: {live: true, profileName: 'prod'}} as unknown as ApiContext
    await expect(liveMoneyGate(ctx, false, () => ['LIVE'])).rejects.toThrow(/no one can be asked \(CI, PAY_NO_INPUT or --no-input\)/)
  })
})
