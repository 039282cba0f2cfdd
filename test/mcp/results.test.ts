/** A tool call's printed output as its structured result. */
import {describe, expect, it} from 'vitest'
import {structuredOf} from '../../src/mcp/results.js'

describe('the structured result', () => {
  it('is the body as sent, also when it spans lines; pages of --all are joined', () => {
    expect(structuredOf('{\n  "id": "CL_1",\n  "status": "processing"\n}\n')).toEqual({id: 'CL_1', status: 'processing'})
    expect(structuredOf('{"data":[{"id":1}],"has_more":true}\n{"data":[{"id":2}],"has_more":false}\n')).toEqual({data: [{id: 1}, {id: 2}], pages: 2})
    expect(structuredOf('[1,2]')).toEqual({value: [1, 2]})
  })
})
